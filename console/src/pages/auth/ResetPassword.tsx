import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/ui';
import { AuthFrame } from './AuthFrame';

/** The page the password-reset e-mail links to: `/reset-password?token=…`. */
export default function ResetPassword() {
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const [password, setPassword] = useState('');
  const reset = useMutation({ mutationFn: async () => unwrap(await api.POST('/auth/reset-password', { body: { token, password } })).data });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    reset.mutate();
  };
  return (
    <AuthFrame title="Choose a new password">
      {reset.data ? (
        <p role="status">
          {reset.data.message} <Link to="/login">Sign in</Link>
        </p>
      ) : !token ? (
        <p className="error" role="alert">
          This link has no reset token. <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      ) : (
        <form onSubmit={submit} className="form">
          <label>
            New password <span className="muted">(at least 8 characters)</span>
            <input type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
          </label>
          <ErrorMessage error={reset.error} />
          <button type="submit" className="primary" disabled={reset.isPending}>
            Set password
          </button>
        </form>
      )}
    </AuthFrame>
  );
}
