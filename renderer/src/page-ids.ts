// The app's pages, by the id the URL hash carries (#/runs). Here alone, with no imports, so that
// Node scripts (scripts/walkthrough-screenshots.ts) can read the same list the app routes by.
export const pages = ['setup', 'hardware', 'plan', 'run', 'runs', 'compare', 'reports', 'settings'] as const;
export type PageId = (typeof pages)[number];
