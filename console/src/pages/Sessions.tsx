import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { PageTitle } from '../components/ui';

export default function Sessions() {
  const navigate = useNavigate();
  const [sessionId, setSessionId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (sessionId.trim()) void navigate(`/sessions/${encodeURIComponent(sessionId.trim())}`);
  };
  return (
    <>
      <PageTitle title="Sessions" />
      <form className="form inline-form" onSubmit={submit} aria-label="Open a session">
        <label>
          Session id
          <input value={sessionId} onChange={(e) => setSessionId(e.target.value)} />
        </label>
        <button type="submit" className="primary">
          Open
        </button>
      </form>
    </>
  );
}
