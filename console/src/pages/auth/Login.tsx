import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { session } from '../../auth/session';
import { useSession } from '../../components/Layout';
import { ErrorMessage } from '../../components/ui';
import { AuthFrame, nextPath } from './AuthFrame';
import { HostedSignIn } from './HostedSignIn';

export default function Login() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const state = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: async () => unwrap(await api.POST('/auth/login', { body: { email, password } })).data,
    onSuccess: (data) => {
      session.accept(data);
      void navigate(nextPath(search), { replace: true });
    },
  });
  if (state.status === 'signed-in' && !login.isPending) return <Navigate to={nextPath(search)} replace />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <AuthFrame title="Sign in">
      <HostedSignIn next={nextPath(search)} />
      <form onSubmit={submit} className="form">
        <label>
          E-mail
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <ErrorMessage error={login.error} />
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link> · <Link to={`/register${search.size ? `?${search}` : ''}`}>Create an account</Link>
      </p>
    </AuthFrame>
  );
}
