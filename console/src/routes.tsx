import { createBrowserRouter, type RouteObject } from 'react-router';
import { Layout, RequireSignIn } from './components/Layout';
import { Loading, NotFound } from './components/ui';
import { type PageEntry, PUBLIC_PAGES, SIGNED_IN_PAGES } from './page-table';

const modules = import.meta.glob<{ default: React.ComponentType }>([
  './pages/*.tsx',
  './pages/auth/*.tsx',
  '!./pages/auth/AuthFrame.tsx',
  '!./pages/auth/HostedSignIn.tsx',
]);

/** Each page loads with its own chunk, so the first load carries only the page that is opened. */
function page({ path, module }: PageEntry): RouteObject {
  const load = modules[`./pages/${module}.tsx`];
  if (!load) throw new Error(`page-table.ts names ${module}, which is not a module under pages/`);
  return { path, lazy: async () => ({ Component: (await load()).default }) };
}

export const router = createBrowserRouter([
  {
    // Shown while the first page's chunk loads.
    HydrateFallback: Loading,
    children: [
      ...PUBLIC_PAGES.map(page),
      {
        element: <RequireSignIn />,
        children: [
          {
            element: <Layout />,
            children: [...SIGNED_IN_PAGES.map(page), { path: '*', element: <NotFound /> }],
          },
        ],
      },
    ],
  },
]);
