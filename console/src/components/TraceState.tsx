import type { Schemas } from '../api/client';
import { Badge, formatTime, statusTone } from './ui';

type TraceEnd = Pick<Schemas['TraceSummary'], 'complete' | 'closedAt' | 'endTime'>;

const inProgress = (trace: Omit<TraceEnd, 'endTime'>) => !trace.complete && trace.closedAt === null;

/**
 * A trace's status, left out while it is in progress and nothing in it has failed: its status is its
 * root span's, which has not arrived or ended yet, so "ok" would claim an outcome it has not had. A
 * failure already seen says error at once.
 */
export function TraceStatusBadge({ trace }: { trace: Omit<TraceEnd, 'endTime'> & Pick<Schemas['TraceSummary'], 'status'> }) {
  if (trace.status === 'ok' && inProgress(trace)) return null;
  return <Badge tone={statusTone(trace.status)}>{trace.status}</Badge>;
}

/**
 * Whether a trace has ended, in words (the badge's colour only repeats them). Finished (`complete`: its
 * root span arrived and ended) says nothing. Until then it is in progress, with its last activity: the
 * latest time its spans report (`lastActivity`; in a list, `endTime`, which before the root arrives is
 * its spans' latest end, and unknown while a root that has not ended is there). A trace no span
 * reached for an hour is closed by the service (`closedAt`) and from then on counted as it stands; its
 * root may still arrive later, which makes it complete.
 */
export function TraceState({ trace, lastActivity = trace.endTime }: { trace: TraceEnd; lastActivity?: string | null }) {
  if (trace.closedAt !== null) {
    return trace.complete ? (
      <div className="muted small">closed at {formatTime(trace.closedAt)}; its root span finished after</div>
    ) : (
      <div>
        <Badge tone="warn">closed</Badge> <span className="small">without a finished root span at {formatTime(trace.closedAt)}</span>
      </div>
    );
  }
  if (!inProgress(trace)) return null;
  return (
    <div>
      <Badge tone="info">in progress</Badge>
      {lastActivity ? <span className="small"> last activity {formatTime(lastActivity)}</span> : null}
    </div>
  );
}
