// The actions of one saved target (an ssh cluster, a Slurm target): pre-flight, detect, what else the
// kind has, edit, delete. The store's `busy` names the action running ('preflight:NAME'), so its button
// says so and the others wait.
import type { ReactNode } from 'react';

export interface TargetButtonsProps {
  name: string;
  busy: string | null;
  /** What the pre-flight button says while it runs, and the detect button's label and running label. */
  checking: string;
  detectLabel: string;
  onPreflight: () => void;
  onDetect: () => void;
  onEdit: () => void;
  onDelete: () => void;
  /** The kind's own buttons, between detect and edit. */
  children?: ReactNode;
}

export function TargetButtons({
  name,
  busy,
  checking,
  detectLabel,
  onPreflight,
  onDetect,
  onEdit,
  onDelete,
  children,
}: TargetButtonsProps) {
  return (
    <div className="button-row">
      <button type="button" disabled={busy !== null} onClick={onPreflight}>
        {busy === `preflight:${name}` ? checking : 'Pre-flight'}
      </button>
      <button type="button" className="secondary" disabled={busy !== null} onClick={onDetect}>
        {busy === `detect:${name}` ? 'Detecting…' : detectLabel}
      </button>
      {children}
      <button type="button" className="secondary" onClick={onEdit}>
        Edit
      </button>
      <button type="button" className="danger" disabled={busy !== null} onClick={onDelete}>
        Delete
      </button>
    </div>
  );
}
