import type { ReactNode } from 'react';
import { showBidiControls } from './UserText';

/** A problem the API's schema finds with a filter, under the field, read out with it. */
function Problem({ id, problem }: { id: string; problem: string | undefined }) {
  return problem ? (
    <span className="field-error" id={id}>
      {problem}
    </span>
  ) : null;
}

/**
 * A typed filter (text or a number as text, so the API's schema is what judges it), applied on Enter
 * or when focus leaves it; `suggestions` are offered as it is typed. Its URL value re-mounts it, so
 * going back or clearing the filters shows what the URL holds.
 */
export function TextFilter({
  name,
  label,
  value,
  problem,
  suggestions,
  inputMode,
  onCommit,
}: {
  name: string;
  label: ReactNode;
  value: string;
  problem?: string | undefined;
  suggestions?: readonly string[] | undefined;
  inputMode?: 'numeric' | 'decimal';
  onCommit: (value: string) => void;
}) {
  const commit = (text: string) => {
    if (text.trim() !== value) onCommit(text.trim());
  };
  return (
    <label className="filter">
      {label}
      <input
        key={value}
        name={name}
        type={inputMode ? 'text' : 'search'}
        inputMode={inputMode}
        list={suggestions && suggestions.length > 0 ? `${name}-options` : undefined}
        defaultValue={value}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${name}-problem` : undefined}
        onBlur={(e) => commit(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
      />
      {suggestions && suggestions.length > 0 ? (
        <datalist id={`${name}-options`}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      ) : null}
      <Problem id={`${name}-problem`} problem={problem} />
    </label>
  );
}

/** A filter with fixed choices; the empty value is "any". */
export function ChoiceFilter({
  name,
  label,
  value,
  any,
  choices,
  problem,
  onChange,
}: {
  name: string;
  label: ReactNode;
  value: string;
  any: string;
  choices: ReadonlyArray<{ value: string; label: string }>;
  problem?: string | undefined;
  onChange: (value: string) => void;
}) {
  return (
    <label className="filter">
      {label}
      <select
        name={name}
        value={value}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${name}-problem` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{any}</option>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {showBidiControls(c.label)}
          </option>
        ))}
        {value && !choices.some((c) => c.value === value) ? <option value={value}>{showBidiControls(value)}</option> : null}
      </select>
      <Problem id={`${name}-problem`} problem={problem} />
    </label>
  );
}

/** The agent a list is narrowed to (`agentId`), chosen among the tenant's agents (`GET /spans/filters`). */
export function AgentFilter({
  agents,
  value,
  problem,
  onChange,
}: {
  agents: ReadonlyArray<{ id: string; name: string }> | undefined;
  value: string;
  problem?: string | undefined;
  onChange: (agentId: string) => void;
}) {
  return (
    <ChoiceFilter
      name="agentId"
      label="Agent"
      any="All agents"
      value={value}
      choices={agents?.map((a) => ({ value: a.id, label: a.name })) ?? []}
      problem={problem}
      onChange={onChange}
    />
  );
}
