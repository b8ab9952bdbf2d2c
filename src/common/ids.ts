/** An outside id (an event, delivery or item id) made safe inside a workflow id: other characters become `_`. */
export function idPart(id: string): string {
  return id.replace(/[^\w.:@-]/g, '_');
}
