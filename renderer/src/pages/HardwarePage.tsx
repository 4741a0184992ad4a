// Hardware: what `detect` found — CPU, NUMA, memory, GPUs and their links, disks, warnings.
import { useEffect } from 'react';
import type { Machine } from '../../../electron/contract';
import { Card, ErrorBox, KeyValues, PageHeader, Skeleton } from '../components/ui';
import { TopologyView } from '../components/TopologyView';
import { MeasurementFigures } from '../components/MeasurementFigures';
import { formatBytes, formatDateTime } from '../format';
import { useApp } from '../stores/app';
import { useHardware } from '../stores/hardware';
import { useMeasure } from '../stores/measure';
import { MeasurementPicker, useMeasurementChoice } from '../components/MeasurementPicker';
import { useWizard } from '../stores/wizard';

function warningText(w: unknown): string {
  if (typeof w === 'string') return w;
  const o = w as { message?: string; fix?: string };
  return [o.message, o.fix].filter(Boolean).join(' — ');
}

function CpuCard({ machine }: { machine: Machine }) {
  const { cpu } = machine;
  return (
    <Card title="CPU" testId="cpu-card">
      <KeyValues
        rows={[
          ['Model', <span data-testid="cpu-model">{cpu.model}</span>],
          ['Architecture', cpu.architecture],
          ['Sockets', cpu.sockets],
          ['Cores', `${cpu.physicalCores} physical / ${cpu.logicalCores} logical${cpu.smt ? ' (SMT on)' : ''}`],
          [
            'NUMA nodes',
            cpu.numaNodes.length
              ? cpu.numaNodes.map((n) => `node${n.id}: ${n.cpus.length} CPUs, ${formatBytes(n.memoryBytes)}`).join('; ')
              : 'not reported',
          ],
          ['SIMD', cpu.simd.length ? cpu.simd.join(', ') : 'not reported'],
          [
            'Caches',
            cpu.caches.length ? cpu.caches.map((c) => `L${c.level} ${c.type} ${formatBytes(c.sizeBytes)}`).join(', ') : 'not reported',
          ],
        ]}
      />
    </Card>
  );
}

function MemoryCard({ machine }: { machine: Machine }) {
  const { memory } = machine;
  return (
    <Card title="Memory" testId="memory-card">
      <KeyValues
        rows={[
          ['Total', formatBytes(memory.totalBytes)],
          ['Available', formatBytes(memory.availableBytes)],
          [
            'Pinned-memory limit (ulimit -l)',
            memory.lockedMemoryUnlimited
              ? 'unlimited'
              : memory.lockedMemoryLimitBytes === null
                ? 'unknown'
                : formatBytes(memory.lockedMemoryLimitBytes),
          ],
          ['Huge pages', memory.hugePages ? `${memory.hugePages.total} × ${formatBytes(memory.hugePages.sizeBytes)}` : 'none'],
        ]}
      />
    </Card>
  );
}

function GpuCard({ machine }: { machine: Machine }) {
  return (
    <Card title="GPUs" testId="gpu-card">
      {machine.gpus.length === 0 ? (
        <div data-testid="no-gpu">
          <p className="muted">
            {machine.gpuStatus.driver === 'none' ? 'This machine has no NVIDIA GPU.' : 'No GPU could be used.'} You can still plan for
            another machine (Plan → “Plan for”, or load its <code>detect --json</code>) and run the CPU path on a tiny model here.
          </p>
          {machine.gpuStatus.message && (
            <details className="small muted">
              <summary>What detection saw</summary>
              {machine.gpuStatus.message}
            </details>
          )}
        </div>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>#</th>
              <th>Name</th>
              <th>Memory</th>
              <th>Compute</th>
              <th>PCIe</th>
              <th>NUMA</th>
              <th>Links</th>
            </tr>
          </thead>
          <tbody>
            {machine.gpus.map((g) => (
              <tr key={g.index}>
                <td>{g.index}</td>
                <td>{g.name}</td>
                <td>{formatBytes(g.memoryBytes)}</td>
                <td>{g.computeCapability ?? '—'}</td>
                <td>
                  Gen{g.pcie.gen ?? '?'} x{g.pcie.width ?? '?'}
                  {g.pcie.maxGen && g.pcie.gen !== g.pcie.maxGen ? ` (max Gen${g.pcie.maxGen})` : ''}
                </td>
                <td>{g.numaNode ?? '—'}</td>
                <td>{g.links.map((l) => `${l.peer}: ${l.bandwidthClass}`).join('; ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

/** The disks detection found: where ZeRO-Infinity could swap (NVMe), and how big each is. */
function DisksCard({ machine }: { machine: Machine }) {
  return (
    <Card title="Disks" testId="disks-card">
      {machine.disks.length === 0 ? (
        <p className="muted">No disks were reported.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Disk</th>
              <th>Kind</th>
              <th>Size</th>
              <th>Mounted at</th>
            </tr>
          </thead>
          <tbody>
            {machine.disks.map((d) => (
              <tr key={d.name}>
                <td>
                  {d.name}
                  {d.model && <div className="muted small">{d.model}</div>}
                </td>
                <td>
                  {d.isNvme
                    ? 'NVMe SSD'
                    : d.rotational
                      ? 'hard disk'
                      : d.rotational === false
                        ? `SSD${d.transport ? ` (${d.transport})` : ''}`
                        : (d.transport ?? '—')}
                </td>
                <td>{formatBytes(d.sizeBytes)}</td>
                <td className="small">{d.mountpoints.length ? d.mountpoints.join(', ') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">
        {machine.disks.some((d) => d.isNvme)
          ? 'ZeRO-Infinity can swap optimizer states and parameters to an NVMe disk.'
          : 'No NVMe disk: ZeRO-Infinity (NVMe offload) is not available here.'}
      </p>
    </Card>
  );
}

/** What the host measurement found (Setup → Measure, or `measure`): the figures plans use instead of catalogued ones. */
function MeasurementsCard() {
  const { stored, storedLoaded, loadStored, running } = useMeasure();
  const go = useApp((s) => s.go);
  const [choice, setChoice] = useMeasurementChoice(stored);
  useEffect(() => {
    if (!running) void loadStored();
  }, [running, loadStored]);
  // The stored measurement is the newest; plans may use another (the newest flagged, or one picked):
  // the card then says so above the figures, so they are not read as the ones plans use.
  const usedAt = choice?.usedAt ?? null;
  const notUsed = stored !== null && usedAt !== null && usedAt !== stored.measuredAt;
  const newestFlagged = Boolean(choice?.measurements.find((m) => m.measuredAt === stored?.measuredAt)?.flagged.length);
  return (
    <>
      <Card title="Measurements" testId="measurements-card">
        {notUsed && usedAt && (
          <p className="warn-text small" data-testid="measurement-not-used">
            These are the newest measurement&apos;s figures{newestFlagged ? ' (flagged)' : ''}; plans do not use it: they use the
            measurement of {formatDateTime(usedAt)} (below).
          </p>
        )}
        {stored ? (
          <MeasurementFigures measurement={stored} when />
        ) : (
          <p className="muted">
            {storedLoaded
              ? 'Not measured yet: plans use catalogued figures for CPU Adam, memory bandwidth and host↔GPU copies.'
              : 'Reading the stored measurement…'}{' '}
            {storedLoaded && (
              <button
                type="button"
                className="link"
                onClick={() =>
                  void useWizard
                    .getState()
                    .goTo('measure')
                    .then(() => go('setup'))
                }
              >
                Measure in Setup
              </button>
            )}
          </p>
        )}
      </Card>
      {stored && <MeasurementPicker choice={choice} setChoice={setChoice} />}
    </>
  );
}

export function HardwarePage() {
  const { machine, loading, error, detect } = useHardware();
  useEffect(() => {
    if (!machine) void detect();
  }, [machine, detect]);

  return (
    <div className="page">
      <PageHeader
        title="Hardware"
        subtitle="What offload speed depends on: cores, NUMA, memory, GPUs and the links between them."
        actions={
          <button type="button" onClick={() => void detect(true)} disabled={loading}>
            {loading ? 'Detecting…' : 'Detect again'}
          </button>
        }
      />
      {error && <ErrorBox message={error} onRetry={() => void detect(true)} />}
      {!machine && !error && <Skeleton lines={8} />}
      {machine && (
        <div className="grid" data-testid="hardware-loaded">
          <Card title="System">
            <KeyValues
              rows={[
                ['Host', machine.hostname],
                ['OS', `${machine.os.distro} ${machine.os.release} (${machine.os.kernel})`],
                ['Detected', formatDateTime(machine.detectedAt)],
              ]}
            />
          </Card>
          {machine.topology && machine.topology.nodes.length > 0 && (
            <div className="span-all">
              <Card title="Topology" testId="topology-card">
                <TopologyView topology={machine.topology} />
              </Card>
            </div>
          )}
          <CpuCard machine={machine} />
          <MemoryCard machine={machine} />
          <GpuCard machine={machine} />
          <DisksCard machine={machine} />
          <MeasurementsCard />
          {machine.warnings.length > 0 && (
            <Card title="Warnings for offload">
              <ul className="warnings">
                {machine.warnings.map((w, i) => (
                  <li key={i} className={`severity-${(w as { severity?: string }).severity ?? 'warning'}`}>
                    {warningText(w)}
                  </li>
                ))}
              </ul>
            </Card>
          )}
        </div>
      )}
    </div>
  );
}
