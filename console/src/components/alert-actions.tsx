import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, api, type Schemas, unwrap } from '../api/client';
import { ErrorMessage } from './ui';

type Alert = Schemas['Alert'];
type Action = 'acknowledge' | 'reopen' | 'resolve';

/** What an alert in each status can become (the API refuses the rest). */
const ACTIONS: Record<Alert['status'], Action[]> = { open: ['acknowledge', 'resolve'], acknowledged: ['resolve', 'reopen'], resolved: ['reopen'] };
const LABEL: Record<Action, string> = { acknowledge: 'Acknowledge', reopen: 'Reopen', resolve: 'Resolve' };

export function AlertActions({ alert }: { alert: Alert }) {
  const queryClient = useQueryClient();
  const act = useMutation({
    mutationFn: async (action: Action) => {
      const params = { params: { path: { alertId: alert.id } } };
      if (action === 'acknowledge') return unwrap(await api.PUT('/spans/alerts/{alertId}/acknowledge', params));
      if (action === 'reopen') return unwrap(await api.PUT('/spans/alerts/{alertId}/reopen', params));
      return unwrap(await api.PUT('/spans/alerts/{alertId}/resolve', params));
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['alerts'] }).then(() => queryClient.invalidateQueries({ queryKey: ['alert', alert.id] })),
  });
  // A refused reopen names the newer alert that is active instead: the way to it.
  const activeAlertId = act.error instanceof ApiError ? act.error.details['activeAlertId'] : undefined;
  return (
    <span className="alert-actions">
      {ACTIONS[alert.status].map((action) => (
        <button key={action} type="button" onClick={() => act.mutate(action)} disabled={act.isPending} aria-label={`${LABEL[action]} alert: ${alert.message}`}>
          {LABEL[action]}
        </button>
      ))}
      <ErrorMessage error={act.error} />
      {activeAlertId ? <Link to={`/alerts/${encodeURIComponent(activeAlertId)}`}>Open the active {alert.type} alert</Link> : null}
    </span>
  );
}
