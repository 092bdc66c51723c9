import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { completeHostedSignIn, type HostedProvider } from '../../auth/hosted';
import { ErrorMessage, Loading } from '../../components/ui';
import { AuthFrame } from './AuthFrame';
import { useHostedProviders } from './HostedSignIn';

/** One completion per answer: the code works once, however often the page renders. */
let completing: { href: string; done: Promise<string> } | undefined;
const completeOnce = (providers: readonly HostedProvider[], href: string) => {
  if (completing?.href !== href) completing = { href, done: completeHostedSignIn(providers, new URL(href)) };
  return completing.done;
};

/** `/auth/callback`: where the hosted sign-in answers; signs the visitor in and goes on to the page they asked for. */
export default function AuthCallback() {
  const navigate = useNavigate();
  const providers = useHostedProviders();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!providers.data) return;
    completeOnce(providers.data, window.location.href).then(
      (next) => void navigate(next, { replace: true }),
      (err: unknown) => setError(err),
    );
  }, [providers.data, navigate]);
  const failure = error ?? providers.error;
  return (
    <AuthFrame title={failure ? 'Sign-in failed' : 'Signing in'}>
      {failure ? (
        <>
          <ErrorMessage error={failure} />
          <p>
            <Link to="/login">Back to sign-in</Link>
          </p>
        </>
      ) : (
        <Loading label="Finishing your sign-in" />
      )}
    </AuthFrame>
  );
}
