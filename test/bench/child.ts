/**
 * For a scenario's child process (forked with an IPC channel): when the bench that started it goes
 * (stopped, killed or crashed), the channel closes and the child exits too, rather than seed or serve
 * on for nobody.
 */
export function exitWithParent(): void {
  process.once('disconnect', () => process.exit(1));
}
