import { Link } from 'react-router';
import { UserText } from './UserText';

/** A link to an agent's page, named as its sender named it (its id when it has no name), or a dash for no agent. */
export function AgentLink({ agentId, name }: { agentId: string | null | undefined; name?: string | null | undefined }) {
  if (!agentId) return <>—</>;
  return (
    <Link to={`/agents/${encodeURIComponent(agentId)}`}>
      <UserText text={name ?? agentId} />
    </Link>
  );
}
