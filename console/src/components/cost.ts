/**
 * A cost in US dollars: whole cents from a dollar up, and four significant digits below one, so a
 * cost just over an alert's threshold ($0.0501 against $0.05) does not read as equal to it.
 */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  if (cost === 0) return '$0';
  if (cost >= 1) return `$${cost.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${cost.toLocaleString('en-US', { maximumSignificantDigits: 4, maximumFractionDigits: 12 })}`;
}
