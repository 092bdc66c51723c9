import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/ui';
import { AuthFrame } from './AuthFrame';

export default function ForgotPassword() {
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: async () => unwrap(await api.POST('/auth/forgot-password', { body: { email } })).data });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    request.mutate();
  };
  return (
    <AuthFrame title="Reset your password">
      {request.data ? (
        <p role="status">{request.data.message}</p>
      ) : (
        <form onSubmit={submit} className="form">
          <label>
            E-mail
            <input type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <ErrorMessage error={request.error} />
          <button type="submit" className="primary" disabled={request.isPending}>
            E-mail me a reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}
