/** A setting the service cannot run with; its message names the setting. Apart from config.ts, which reads the environment as it loads. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
