import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildTestApp, catalogWithSchedule } from './service-app.ts';

describe.each([
  ['the service', buildTestApp()],
  ['the service with a schedule', buildTestApp({ catalog: catalogWithSchedule })],
])('cdk-nag AWS Solutions checks of %s', (_, { app }) => {
  // The first synthesis of the app, its ~450 resources checked: tens of seconds on a busy machine.
  it('synthesizes: the registered checks find no unacknowledged error', () => {
    expect(() => app.synth()).not.toThrow();
  }, 120_000);

  it('find no unacknowledged warning either', () => {
    app.synth();
    const { violations } = new AwsSolutionsChecks().validateScope(app);
    expect(violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  it('acknowledge each rule with a written reason', () => {
    const acknowledgements = app.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [ruleId, reason] of acknowledgements) {
      expect(ruleId).toMatch(/(^|::)AwsSolutions-/);
      expect(reason.trim().length, ruleId).toBeGreaterThanOrEqual(10);
    }
  });
});
