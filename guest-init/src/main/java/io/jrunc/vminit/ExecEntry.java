package io.jrunc.vminit;

/**
 * What an exec id holds in its container's record: {@link #STARTING} from the moment Exec takes the id
 * until the process exists and its streams are the agent's, then the {@link ManagedProcess}. A call
 * naming a starting exec is refused rather than sent somewhere else: its process may not exist yet.
 */
sealed interface ExecEntry permits ExecEntry.Starting, ManagedProcess {
    Starting STARTING = new Starting();

    /** An exec whose Exec call has not answered yet. */
    final class Starting implements ExecEntry {
        private Starting() {}
    }
}
