import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { type HostedProvider, rememberedProvider, startHostedSignIn } from '../../auth/hosted';
import { ErrorMessage, Loading } from '../../components/ui';

/** The hosted sign-ins the deployment offers (`GET /auth/hosted-sign-in`, from JWT_EXTERNAL_ISSUERS). */
export const useHostedProviders = () =>
  useQuery({ queryKey: ['hosted-sign-in'], queryFn: async () => unwrap(await api.GET('/auth/hosted-sign-in')).data.providers, staleTime: Infinity });

/**
 * "Sign in with <name>" for each hosted sign-in. A tab that signed in through one goes back through
 * it by itself (a reload, an expired sign-in): the provider answers at once while its own session lasts.
 */
export function HostedSignIn({ next }: { next: string }) {
  const providers = useHostedProviders();
  const [leaving, setLeaving] = useState<string>();
  const [error, setError] = useState<unknown>();
  const start = (provider: HostedProvider) => {
    setLeaving(provider.name);
    startHostedSignIn(provider, next).catch((err: unknown) => {
      setLeaving(undefined);
      setError(err);
    });
  };
  const remembered = providers.data?.find((p) => p.name === rememberedProvider());
  // Once the providers are known (they are fetched once: the same object after).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `start` is made anew each render; the sign-in starts once per provider.
  useEffect(() => {
    if (remembered) start(remembered);
  }, [remembered]);
  if (providers.error) return <ErrorMessage error={providers.error} />;
  if (!providers.data?.length) return null;
  if (leaving) return <Loading label={`Going to ${leaving} to sign you in`} />;
  return (
    <div className="hosted-sign-in">
      {providers.data.map((provider) => (
        <button key={provider.name} type="button" onClick={() => start(provider)}>
          Sign in with {provider.name}
        </button>
      ))}
      <ErrorMessage error={error} />
      <p className="divider muted">or with your e-mail and password</p>
    </div>
  );
}
