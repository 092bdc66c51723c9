import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * zod/mini has no messages of its own (every issue reads "Invalid input"): this gives it the English
 * ones classic zod has (the English locale alone, not all of `z.locales`). Imported by the modules
 * that turn issues into text a client or an operator reads.
 */
z.config(en());
