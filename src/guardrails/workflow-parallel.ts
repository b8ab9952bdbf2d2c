import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { GuardrailTrip } from './recorded.ts';
import type { InputChecked } from './workflow-checks.ts';

/**
 * A model step taken beside the parallel input checks: a trip cancels the step, and the step (its
 * tool calls or answer) is returned only once every check has allowed the prompt. `answered` says
 * whether the step had answered (and stored its answer) before the trip.
 */
export async function takeBesideInputChecks<Step>(
  take: () => Promise<Step>,
  checks: () => Promise<InputChecked>,
): Promise<Step | { trip: GuardrailTrip; answered: boolean }> {
  const scope = new CancellationScope();
  let tripped: GuardrailTrip | undefined;
  const checked = checks().then((result) => {
    if ('trip' in result) {
      tripped = result.trip;
      scope.cancel();
    }
    return result;
  });
  // Awaited below, except after a stop from outside: its failure then must not fail the task.
  checked.catch(() => undefined);
  try {
    const step = await scope.run(take);
    const result = await checked;
    return 'trip' in result ? { trip: result.trip, answered: true } : step;
  } catch (error) {
    if (tripped) return { trip: tripped, answered: false };
    if (isCancellation(error)) throw error;
    const result = await checked;
    if ('trip' in result) return { trip: result.trip, answered: false };
    throw error;
  }
}
