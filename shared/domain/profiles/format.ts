/** How profiles, anchors and anomalies write numbers in their texts. */
export const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
export const duration = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
export const utcHour = (hour: number): string => `${String(hour).padStart(2, '0')}:00 UTC`;
