// The backend's notices above the page. Each is acknowledged (app/notice-ack) once it has been
// rendered, so the backend stops keeping it; the user closes it here.
import { useEffect } from 'react';
import { useNotices } from '../stores/notices';

export function NoticeBar() {
  const { notices, acked, load, ack, dismiss } = useNotices();
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    for (const n of notices) if (!acked.includes(n.id)) ack(n.id);
  }, [notices, acked, ack]);
  if (notices.length === 0) return null;
  return (
    <div className="notice-bar" data-testid="notices">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.level}`} role={n.level === 'info' ? 'status' : 'alert'} data-testid="notice">
          <span>{n.message}</span>
          <button type="button" className="link" aria-label="Dismiss notice" onClick={() => dismiss(n.id)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
