/** The GraphQL documents this connector sends (tests validate them against Linear's published schema). */
export const LINEAR_DOCUMENTS = {
  search: `query SearchIssues($term: String!, $first: Int) {
  searchIssues(term: $term, first: $first) {
    nodes { id identifier title url priority state { name } assignee { name } }
    pageInfo { hasNextPage endCursor }
  }
}`,
  create: `mutation CreateIssue($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier title url } }
}`,
  byId: `query IssueById($id: String!) {
  issue(id: $id) { id identifier title url }
}`,
} as const;
