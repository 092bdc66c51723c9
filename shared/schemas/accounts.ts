import * as z from 'zod';

const name = z.string().trim().min(1).max(100);
export const password = z.string().min(8, 'must be at least 8 characters').max(256);

export const registerBody = z.object({
  email: z.string().trim().toLowerCase().email().max(254),
  password,
  firstName: name,
  lastName: name,
  company: z.string().trim().max(200).optional(),
});
export const loginBody = z.object({ email: z.string().trim().max(254), password: z.string().max(256) });
export const forgotPasswordBody = z.object({ email: z.string().trim().max(254) });
export const resetPasswordBody = z.object({ token: z.string().min(1).max(200), password });
export const verifyEmailQuery = z.object({ token: z.string().min(1).max(200) });

export const createKeyBody = z.object({ name: z.string().trim().min(1).max(100) });
export const keyIdParams = z.object({ id: z.string().min(1).max(64) });
