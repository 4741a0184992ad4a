// Pages whose issue has not landed yet say what will be there; nothing fake.
import { PageHeader, EmptyState } from '../components/ui';

export function PlaceholderPage({ title, what }: { title: string; what: string }) {
  return (
    <div className="page">
      <PageHeader title={title} />
      <EmptyState title="Coming in a later release">
        <p>{what}</p>
      </EmptyState>
    </div>
  );
}
