package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CdsTrainingTest {
    /** The example spec, rewritten for a pod, is one the runtime loads (a refusal would end the image build's training). */
    @Test
    void readsTheExampleSpecAsCreateDoes() throws Exception {
        assertEquals(1, CdsTraining.exerciseSpecs());
    }
}
