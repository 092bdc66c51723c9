import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import * as z from 'zod/mini';
import { alertConfigPatch, CHANNELS, LLM_ALERT_TYPES, SEVERITIES, THRESHOLD_ALERT_TYPES } from '#shared/domain/alerts/config.ts';
import { api, type Schemas, unwrap } from '../api/client';
import { fieldProblem } from './field-problem';
import { ErrorMessage } from './ui';

type AlertConfig = Schemas['AlertConfig'];
type TypeOptions = AlertConfig['alertTypes'][string];

const THRESHOLDS = [
  { key: 'duration', label: 'Duration (ms)', step: 1 },
  { key: 'inputTokens', label: 'Input tokens', step: 1 },
  { key: 'outputTokens', label: 'Output tokens', step: 1 },
  { key: 'cost', label: 'Cost per call ($)', step: 0.01 },
  { key: 'timeout', label: 'Timeout (ms)', step: 1 },
] as const;

/**
 * The alert configuration of an agent, checked as the API checks it: with the very zod schema the
 * API validates `PUT /agents/:agentId/alerts` with (shared/domain/alerts/config.ts), each problem
 * said beside its field in plain words.
 */
export function AlertConfigEditor({ agentId, config }: { agentId: string; config: AlertConfig }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<AlertConfig>(config);
  const problems = useMemo(() => {
    const result = z.safeParse(alertConfigPatch, draft);
    const byField = new Map<string, string>();
    if (!result.success) for (const issue of result.error.issues) byField.set(issue.path.map(String).join('.'), fieldProblem(issue));
    return byField;
  }, [draft]);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/agents/{agentId}/alerts', { params: { path: { agentId } }, body: draft })).data,
    onSuccess: (saved) => {
      setDraft(saved);
      void queryClient.invalidateQueries({ queryKey: ['agent', agentId] });
    },
  });
  const update = (change: (c: AlertConfig) => void) => {
    const next = structuredClone(draft);
    change(next);
    setDraft(next);
    save.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problems.size === 0) save.mutate();
  };
  const problem = (path: string) => {
    const message = problems.get(path);
    return message ? (
      <span className="field-error" id={`problem-${path}`} role="alert">
        {message}
      </span>
    ) : null;
  };
  const describedBy = (path: string) => (problems.has(path) ? `problem-${path}` : undefined);

  const typeRow = (group: 'alertTypes' | 'llm', type: string, options: TypeOptions & { threshold?: number }) => {
    const base = group === 'llm' ? `llmAnalysis.alertTypes.${type}` : `alertTypes.${type}`;
    const target = (c: AlertConfig) => (group === 'llm' ? c.llmAnalysis.alertTypes[type]! : c.alertTypes[type]!) as TypeOptions & { threshold?: number };
    return (
      <tr key={type}>
        <th scope="row">{type}</th>
        <td>
          <input
            type="checkbox"
            aria-label={`${type} enabled`}
            checked={options.enabled}
            onChange={(e) => update((c) => void (target(c).enabled = e.target.checked))}
          />
        </td>
        {group === 'llm' ? (
          <td>
            <input
              type="number"
              step="0.05"
              aria-label={`${type} confidence threshold`}
              aria-describedby={describedBy(`${base}.threshold`)}
              value={Number.isNaN(options.threshold) ? '' : options.threshold}
              onChange={(e) => update((c) => void (target(c).threshold = e.target.value === '' ? Number.NaN : Number(e.target.value)))}
            />
            {problem(`${base}.threshold`)}
          </td>
        ) : null}
        <td>
          <select
            aria-label={`${type} severity`}
            value={options.severity}
            onChange={(e) => update((c) => void (target(c).severity = e.target.value as TypeOptions['severity']))}
          >
            {SEVERITIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </td>
        <td>
          {CHANNELS.map((channel) => (
            <label key={channel} className="check">
              <input
                type="checkbox"
                checked={options.channels.includes(channel)}
                onChange={(e) =>
                  update((c) => {
                    const t = target(c);
                    t.channels = e.target.checked ? [...t.channels, channel] : t.channels.filter((x) => x !== channel);
                  })
                }
              />
              {channel}
            </label>
          ))}
        </td>
        <td>
          <input
            type="number"
            aria-label={`${type} cooldown minutes`}
            aria-describedby={describedBy(`${base}.cooldownMinutes`)}
            value={Number.isNaN(options.cooldownMinutes) ? '' : options.cooldownMinutes}
            onChange={(e) => update((c) => void (target(c).cooldownMinutes = e.target.value === '' ? Number.NaN : Number(e.target.value)))}
          />
          {problem(`${base}.cooldownMinutes`)}
        </td>
      </tr>
    );
  };

  return (
    <form className="form alert-config" onSubmit={submit} aria-labelledby="alert-config-title" noValidate>
      <h2 id="alert-config-title">Alert configuration</h2>
      <fieldset>
        <legend>Thresholds</legend>
        <div className="row wrap">
          {THRESHOLDS.map((t) => (
            <label key={t.key}>
              {t.label}
              <input
                type="number"
                step={t.step}
                aria-describedby={describedBy(`thresholds.${t.key}`)}
                value={Number.isNaN(draft.thresholds[t.key]) ? '' : draft.thresholds[t.key]}
                onChange={(e) => update((c) => void (c.thresholds[t.key] = e.target.value === '' ? Number.NaN : Number(e.target.value)))}
              />
              {problem(`thresholds.${t.key}`)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Threshold alerts</legend>
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">On</th>
              <th scope="col">Severity</th>
              <th scope="col">Channels</th>
              <th scope="col">Cooldown (min)</th>
            </tr>
          </thead>
          <tbody>{THRESHOLD_ALERT_TYPES.map((type) => typeRow('alertTypes', type, draft.alertTypes[type]!))}</tbody>
        </table>
      </fieldset>
      <fieldset>
        <legend>LLM-judged alerts</legend>
        <label className="check">
          <input type="checkbox" checked={draft.llmAnalysis.enabled} onChange={(e) => update((c) => void (c.llmAnalysis.enabled = e.target.checked))} />
          Judge this agent's traces
        </label>
        <label>
          Share of traces judged (0–1)
          <input
            type="number"
            step="0.05"
            aria-describedby={describedBy('llmAnalysis.samplingRate')}
            value={Number.isNaN(draft.llmAnalysis.samplingRate) ? '' : draft.llmAnalysis.samplingRate}
            onChange={(e) => update((c) => void (c.llmAnalysis.samplingRate = e.target.value === '' ? Number.NaN : Number(e.target.value)))}
          />
          {problem('llmAnalysis.samplingRate')}
        </label>
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">On</th>
              <th scope="col">Confidence threshold</th>
              <th scope="col">Severity</th>
              <th scope="col">Channels</th>
              <th scope="col">Cooldown (min)</th>
            </tr>
          </thead>
          <tbody>{LLM_ALERT_TYPES.map((type) => typeRow('llm', type, draft.llmAnalysis.alertTypes[type]!))}</tbody>
        </table>
      </fieldset>
      <fieldset>
        <legend>Contacts</legend>
        <ContactList
          label="E-mail address"
          items={draft.contacts.email.map((c) => ({ value: c.address, enabled: c.enabled }))}
          problems={(i) => problem(`contacts.email.${i}.address`)}
          onChange={(items) => update((c) => void (c.contacts.email = items.map((i) => ({ address: i.value, enabled: i.enabled }))))}
        />
        <ContactList
          label="Phone number (E.164)"
          items={draft.contacts.sms.map((c) => ({ value: c.phoneNumber, enabled: c.enabled }))}
          problems={(i) => problem(`contacts.sms.${i}.phoneNumber`)}
          onChange={(items) => update((c) => void (c.contacts.sms = items.map((i) => ({ phoneNumber: i.value, enabled: i.enabled }))))}
        />
      </fieldset>
      {problems.size > 0 ? (
        <p className="error" role="status">
          Fix the {problems.size === 1 ? 'field' : `${problems.size} fields`} marked above to save.
        </p>
      ) : null}
      <ErrorMessage error={save.error} />
      {save.isSuccess ? (
        <p className="ok" role="status">
          Saved.
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={save.isPending || problems.size > 0}>
        Save alert configuration
      </button>
    </form>
  );
}

function ContactList({
  label,
  items,
  problems,
  onChange,
}: {
  label: string;
  items: Array<{ value: string; enabled: boolean }>;
  problems: (index: number) => React.ReactNode;
  onChange: (items: Array<{ value: string; enabled: boolean }>) => void;
}) {
  const set = (index: number, change: Partial<{ value: string; enabled: boolean }>) =>
    onChange(items.map((item, i) => (i === index ? { ...item, ...change } : item)));
  return (
    <div className="contacts">
      {items.map((item, i) => (
        <div className="row" key={i}>
          <label>
            {label} {i + 1}
            <input value={item.value} onChange={(e) => set(i, { value: e.target.value })} />
            {problems(i)}
          </label>
          <label className="check">
            <input type="checkbox" checked={item.enabled} onChange={(e) => set(i, { enabled: e.target.checked })} />
            enabled
          </label>
          <button type="button" className="link" onClick={() => onChange(items.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...items, { value: '', enabled: true }])}>
        Add {label.toLowerCase().replace(/ \(.*\)$/, '')}
      </button>
    </div>
  );
}
