// The strategy's one display name, its colour, and its id as secondary text: the Plan table, the
// recommendation and the run pages name a strategy alike.
import { strategyColor, strategyLabel } from '../../../../electron/contract/charts/labels';

/** The strategy's one display name, its colour, and its id as secondary text. */
export function StrategyName({ id, strong = false }: { id: string; strong?: boolean }) {
  const name = strategyLabel(id);
  return (
    <span className="strategy-name">
      <span className="swatch" style={{ background: strategyColor(id) }} aria-hidden="true" />
      {strong ? <strong>{name}</strong> : name}
      {name !== id && <span className="muted small strategy-id"> {id}</span>}
    </span>
  );
}
