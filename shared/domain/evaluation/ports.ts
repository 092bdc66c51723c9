/** One tenant's evaluations in one UTC day, and what the judge's own model consumed for them. */
export interface EvaluationUsage {
  evaluations: number;
  inputTokens: number;
  outputTokens: number;
  /** US dollars, at list price. */
  cost: number;
}

/** Per tenant and UTC day (`YYYY-MM-DD`): the daily evaluation budget and the judge's token and cost ledger. */
export interface EvaluationUsageRepository {
  /** Counts one evaluation against the day's budget; answers false, counting nothing, once `budget` have been counted. */
  claim(tenantId: string, day: string, budget: number): Promise<boolean>;
  addJudgeUsage(tenantId: string, day: string, usage: Omit<EvaluationUsage, 'evaluations'>): Promise<void>;
  get(tenantId: string, day: string): Promise<EvaluationUsage>;
}
