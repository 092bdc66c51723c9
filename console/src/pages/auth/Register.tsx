import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { session } from '../../auth/session';
import { ErrorMessage } from '../../components/ui';
import { AuthFrame, nextPath } from './AuthFrame';

export default function Register() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const [fields, setFields] = useState({ firstName: '', lastName: '', company: '', email: '', password: '' });
  const set = (name: keyof typeof fields) => (e: React.ChangeEvent<HTMLInputElement>) => setFields({ ...fields, [name]: e.target.value });
  const register = useMutation({
    mutationFn: async () => {
      const { company, ...rest } = fields;
      return unwrap(await api.POST('/auth/register', { body: { ...rest, ...(company ? { company } : {}) } })).data;
    },
    onSuccess: (data) => {
      session.accept(data);
      void navigate(nextPath(search), { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };
  return (
    <AuthFrame title="Create your account">
      <p className="muted">A 14-day trial with 10,000 spans; no card needed.</p>
      <form onSubmit={submit} className="form">
        <div className="row">
          <label>
            First name
            <input autoComplete="given-name" required value={fields.firstName} onChange={set('firstName')} />
          </label>
          <label>
            Last name
            <input autoComplete="family-name" required value={fields.lastName} onChange={set('lastName')} />
          </label>
        </div>
        <label>
          Company <span className="muted">(optional)</span>
          <input autoComplete="organization" value={fields.company} onChange={set('company')} />
        </label>
        <label>
          E-mail
          <input type="email" autoComplete="email" required value={fields.email} onChange={set('email')} />
        </label>
        <label>
          Password <span className="muted">(at least 8 characters)</span>
          <input type="password" autoComplete="new-password" required minLength={8} value={fields.password} onChange={set('password')} />
        </label>
        <ErrorMessage error={register.error} />
        <button type="submit" className="primary" disabled={register.isPending}>
          {register.isPending ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to={`/login${search.size ? `?${search}` : ''}`}>Sign in</Link>
      </p>
    </AuthFrame>
  );
}
