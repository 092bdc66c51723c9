import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage, Loading } from '../../components/ui';
import { AuthFrame } from './AuthFrame';

/** The page the welcome e-mail links to: `/verify-email?token=…`. */
export default function VerifyEmail() {
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const verify = useQuery({
    queryKey: ['verify-email', token],
    queryFn: async () => unwrap(await api.GET('/auth/verify-email', { params: { query: { token } } })).data,
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
  });
  return (
    <AuthFrame title="Verify your e-mail">
      {verify.isLoading ? <Loading label="Verifying" /> : null}
      {verify.data ? <p role="status">{verify.data.message}</p> : null}
      <ErrorMessage error={token ? verify.error : new Error('This link has no verification token.')} />
      <p>
        <Link to="/">Open the console</Link>
      </p>
    </AuthFrame>
  );
}
