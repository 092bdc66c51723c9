/** A catalog id as a construct id: `auth/forgot-password` → `AuthForgotPassword`. */
export const constructId = (catalogId: string): string =>
  catalogId
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
