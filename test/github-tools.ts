import { defineTool, type ToolDefinition } from '../src/index.js';

/**
 * GitHub's tools for tests of large catalogs: one that opens issues (recording their titles in `opened`), one
 * that deletes repositories (which the tests' policies deny; `deleted` counts its runs), and 30 read-only
 * reports to search among.
 */
export function githubTools(opened: string[], deleted: { count: number } = { count: 0 }): ToolDefinition[] {
  return [
    defineTool({
      name: 'create_issue',
      description: 'Opens a new GitHub issue in the repository.',
      input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      run: (args: { title: string }) => {
        opened.push(args.title);
        return 'issue #7';
      },
    }),
    defineTool({
      name: 'delete_repository',
      description: 'Deletes a GitHub repository.',
      run: () => String(++deleted.count),
    }),
    ...Array.from({ length: 30 }, (_, i) =>
      defineTool({
        name: `report_${i}`,
        description: `Builds quarterly report ${i}.`,
        annotations: { readOnly: true },
        run: () => 'r',
      }),
    ),
  ];
}
