/**
 * The search language's limits, apart from its parser (query.ts) so that the route schemas, which the
 * console imports to check a URL's query as the API does, do not bring the parser into its bundle.
 */
export const MAX_QUERY_CHARS = 1000;
export const MAX_TERMS = 24;
