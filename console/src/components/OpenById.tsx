import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';

/** Straight to an item whose id is known (from a log line, a support ticket): `/<path>/<id>`, the id URL-encoded. */
export function OpenById({ label, formLabel, path }: { label: string; formLabel: string; path: string }) {
  const navigate = useNavigate();
  const [id, setId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (id.trim()) void navigate(`${path}/${encodeURIComponent(id.trim())}`);
  };
  return (
    <form className="form inline-form" onSubmit={submit} aria-label={formLabel}>
      <label>
        {label}
        <input value={id} onChange={(e) => setId(e.target.value)} />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}
