package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CdsTrainingTest {
    /** The pod's set-up requests and a Create's parse back as they were encoded (a mismatch would end the training). */
    @Test
    void parsesTheHostsSetUpRequests() throws Exception {
        assertEquals(3, CdsTraining.exerciseRequests());
    }

    /** The example spec, rewritten for a pod, is one the runtime loads (a refusal would end the image build's training). */
    @Test
    void readsTheExampleSpecAsCreateDoes() throws Exception {
        assertEquals(1, CdsTraining.exerciseSpecs());
    }
}
