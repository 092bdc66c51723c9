export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  // Each unit is chosen by the value rounded as it is shown, so nothing reads "60 s" or "60 min".
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(ms < 9_995 ? 2 : 1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  const hours = Math.round(ms / 3_600_000);
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
