import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes are logged at INFO; tests only want errors (failing activities are logged as warnings, and several tests fail activities on purpose).
if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
