import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { queryClient } from './api/query-client';
import { session } from './auth/session';
import { Layout, RequireSignIn } from './components/Layout';
import { Loading, NotFound, PageError } from './components/ui';
import { type PageEntry, PUBLIC_PAGES, SIGNED_IN_PAGES } from './page-table';

/**
 * A page's module: the page, and, when its URL alone says what it asks the API for first, `prefetch`
 * to ask for it as soon as the sign-in and the module are there, while the page draws.
 */
interface PageModule {
  default: React.ComponentType;
  prefetch?: (queryClient: QueryClient, search: URLSearchParams) => void;
}

const modules = import.meta.glob<PageModule>(['./pages/*.tsx', './pages/auth/*.tsx', '!./pages/auth/AuthFrame.tsx', '!./pages/auth/HostedSignIn.tsx']);

/** Each page loads with its own chunk, so the first load carries only the page that is opened. */
function page({ path, module }: PageEntry): RouteObject {
  const load = modules[`./pages/${module}.tsx`];
  if (!load) throw new Error(`page-table.ts names ${module}, which is not a module under pages/`);
  return {
    path,
    lazy: async () => {
      const { default: Component, prefetch } = await load();
      if (!prefetch) return { Component };
      return {
        Component,
        loader: async ({ request }) => {
          // The refresh a page load starts with (early-sign-in.ts) may still be under way: wait for it, never send one.
          await session.settled();
          if (session.accessToken()) prefetch(queryClient, new URL(request.url).searchParams);
          return null;
        },
      };
    },
  };
}

export const router = createBrowserRouter([
  {
    // Shown while the first page's chunk loads.
    HydrateFallback: Loading,
    ErrorBoundary: PageError,
    children: [
      ...PUBLIC_PAGES.map(page),
      {
        element: <RequireSignIn />,
        children: [
          {
            element: <Layout />,
            // Within the layout, so that a page that fails keeps the navigation.
            children: [{ ErrorBoundary: PageError, children: [...SIGNED_IN_PAGES.map(page), { path: '*', element: <NotFound /> }] }],
          },
        ],
      },
    ],
  },
]);
