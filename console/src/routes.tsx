import { createBrowserRouter, type RouteObject } from 'react-router';
import { Layout, RequireSignIn } from './components/Layout';
import { Loading, NotFound } from './components/ui';

/** Each page loads with its own chunk, so the first load carries only the page that is opened. */
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const router = createBrowserRouter([
  {
    // Shown while the first page's chunk loads.
    HydrateFallback: Loading,
    children: [
      { path: '/login', ...page(() => import('./pages/auth/Login')) },
      { path: '/register', ...page(() => import('./pages/auth/Register')) },
      { path: '/forgot-password', ...page(() => import('./pages/auth/ForgotPassword')) },
      { path: '/reset-password', ...page(() => import('./pages/auth/ResetPassword')) },
      { path: '/verify-email', ...page(() => import('./pages/auth/VerifyEmail')) },
      { path: '/auth/callback', ...page(() => import('./pages/auth/AuthCallback')) },
      {
        element: <RequireSignIn />,
        children: [
          {
            element: <Layout />,
            children: [
              { index: true, ...page(() => import('./pages/Overview')) },
              { path: 'traces', ...page(() => import('./pages/Traces')) },
              { path: 'traces/:traceId', ...page(() => import('./pages/TraceDetail')) },
              { path: 'sessions', ...page(() => import('./pages/Sessions')) },
              { path: 'sessions/:sessionId', ...page(() => import('./pages/SessionDetail')) },
              { path: 'agents', ...page(() => import('./pages/Agents')) },
              { path: 'agents/:agentId', ...page(() => import('./pages/AgentDetail')) },
              { path: 'alerts', ...page(() => import('./pages/Alerts')) },
              { path: 'alerts/:alertId', ...page(() => import('./pages/AlertDetail')) },
              { path: 'experiments', ...page(() => import('./pages/Experiments')) },
              { path: 'experiments/:id', ...page(() => import('./pages/ExperimentDetail')) },
              { path: 'settings', ...page(() => import('./pages/Settings')) },
              { path: '*', element: <NotFound /> },
            ],
          },
        ],
      },
    ],
  },
]);
