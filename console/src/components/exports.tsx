import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { ApiError, api, type Schemas, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { API_BASE_URL } from '../page-table';

export type ExportBody = NonNullable<paths['/exports']['post']['requestBody']>['content']['application/json'];
export type ExportFormat = ExportBody['format'];
type Export = Schemas['Export'];

/** The formats an export is written in, as the API names them. */
export const EXPORT_FORMATS: ReadonlyArray<{ value: ExportFormat; label: string }> = [
  { value: 'jsonl', label: 'JSON lines' },
  { value: 'csv', label: 'CSV' },
  { value: 'parquet', label: 'Parquet' },
];

/** The format an export is written in, picked among them. */
export function FormatSelect({ value, onChange, className }: { value: ExportFormat; onChange: (format: ExportFormat) => void; className?: string }) {
  return (
    <label className={className}>
      Format
      <select value={value} onChange={(e) => onChange(e.target.value as ExportFormat)}>
        {EXPORT_FORMATS.map((f) => (
          <option key={f.value} value={f.value}>
            {f.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The signed-in user's profile (Settings reads the same cache entry): its plan's retention bounds an export of "all time". */
export const useProfile = () => useQuery({ queryKey: ['profile'], queryFn: async () => unwrap(await api.GET('/users/profile')), staleTime: 60_000 });

/** `startDate`/`endDate` for an export of the plan's whole retention, ending now. */
export function retentionRange(retentionDays: number, now = Date.now()): { startDate: string; endDate: string } {
  return { startDate: new Date(now - retentionDays * 86_400_000).toISOString(), endDate: new Date(now).toISOString() };
}

/** Queues an export (`POST /exports`) and, once it is accepted, opens the exports page, where it is watched until written. */
export function useStartExport() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: ExportBody) => unwrap(await api.POST('/exports', { body })).data,
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['exports'] });
      void navigate('/exports', { state: { created: created.id } });
    },
  });
}

/** The file name a `Content-Disposition` header gives, if any. */
export function attachmentName(header: string | null): string | undefined {
  const match = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** Whether the export's link is the API's own download route (locally), which needs the sign-in's bearer token; else it is a presigned URL (AWS) that carries its own authority. */
export function isOwnDownloadRoute(item: Pick<Export, 'id' | 'downloadUrl'>): boolean {
  if (!item.downloadUrl) return true;
  try {
    return new URL(item.downloadUrl, window.location.href).pathname === `${API_BASE_URL}/exports/${encodeURIComponent(item.id)}/download`;
  } catch {
    return false;
  }
}

/**
 * Opens an export's file by a presigned link (AWS), read again as it is asked for: a link is valid an
 * hour from when it was read, and a page left open longer would offer one S3 refuses as expired.
 */
export async function openPresignedDownload(item: Pick<Export, 'id'>): Promise<void> {
  const fresh = unwrap(await api.GET('/exports/{id}', { params: { path: { id: item.id } } })).data;
  if (!fresh.downloadUrl) throw new ApiError(404, 'NOT_FOUND', `Export ${item.id} has no file to download (it is ${fresh.status})`);
  const link = document.createElement('a');
  link.href = fresh.downloadUrl;
  link.download = '';
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * Downloads an export's file from the API's route with the console's authenticated client (a plain
 * link would go without the bearer token), and hands it to the browser as a file under the name the
 * API gives.
 */
export async function downloadExport(item: Pick<Export, 'id' | 'format'>): Promise<void> {
  const result = await api.GET('/exports/{id}/download', { params: { path: { id: item.id } }, parseAs: 'blob' });
  if (!result.response.ok || !(result.data instanceof Blob)) {
    unwrap(result);
    throw new ApiError(result.response.status, 'INTERNAL_ERROR', `The download answered ${result.response.status}`);
  }
  const url = URL.createObjectURL(result.data);
  const link = document.createElement('a');
  link.href = url;
  link.download = attachmentName(result.response.headers.get('Content-Disposition')) ?? `${item.id}.${item.format}`;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled; the URL can go after that.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
