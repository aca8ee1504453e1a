package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;

/**
 * The jackson-core factory of the hand-written reader and writers ({@link SpecReader},
 * {@link DocumentWriter}). Configured like the factory under {@link Json}'s mapper, and kept apart from it
 * so that using it never builds the mapper (which is what start-up time is saved from).
 */
final class JsonFactories {

    /** Default parser features, Go's string escaping for writing. */
    static final JsonFactory GO = new JsonFactoryBuilder().characterEscapes(new GoStringEscapes()).build();

    private JsonFactories() {
    }
}
