import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/** The console's cache of API answers: the pages read it, and a page's first request can start before it draws (routes.tsx). */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A refused or missing resource does not get better by asking again.
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});
