import { MODEL_PRICES, type ModelPrice } from './model-prices.ts';

export const CURRENCY = 'USD';

export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  /** Part of inputTokens served from the provider's prompt cache. */
  cachedInputTokens: number | null;
}

export interface PriceTable {
  priceOf(model: string): ModelPrice | undefined;
}

/** A price table over price entries (the built-in list, or a tenant's overrides placed before it). */
export function priceTable(entries: readonly ModelPrice[] = MODEL_PRICES): PriceTable {
  const compiled = entries.map((e) => ({ entry: e, regex: new RegExp(e.pattern, 'i') }));
  const cache = new Map<string, ModelPrice | undefined>();
  return {
    priceOf(model) {
      if (!cache.has(model)) cache.set(model, compiled.find((c) => c.regex.test(model))?.entry);
      return cache.get(model);
    },
  };
}

const defaultTable = priceTable();

/**
 * Estimated cost of one call in US dollars, or null when the model is unknown or no tokens were
 * reported. Cached input tokens are charged at the cache price where the model has one.
 */
export function estimateCost(model: string | null, usage: TokenUsage, table: PriceTable = defaultTable): number | null {
  if (!model) return null;
  const price = table.priceOf(model);
  if (!price) return null;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  if (input === 0 && output === 0) return null;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  const dollars = ((input - cached) * price.inputPerMTok + cached * cachedPrice + output * price.outputPerMTok) / 1_000_000;
  return roundCost(dollars);
}

/** Costs are kept to 1e-9 dollars, so sums of many small calls stay exact enough. */
export const roundCost = (dollars: number): number => Math.round(dollars * 1e9) / 1e9;
