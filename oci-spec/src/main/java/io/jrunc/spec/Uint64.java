package io.jrunc.spec;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code Long} that holds a Go {@code uint64}: the JSON value is read and written as an unsigned
 * 64-bit number, and Java's negative longs stand for the upper half of the range.
 *
 * <p>Why: configs really do carry values above {@link Long#MAX_VALUE}, most often
 * {@code 18446744073709551615} (RLIM_INFINITY) in rlimits, and seccomp argument masks. Reading them into a
 * signed long would fail; this keeps them exact. In Java {@code -1L} is that same bit pattern, which is
 * also what the kernel interfaces (setrlimit, seccomp) want, so FFM callers can pass the long unchanged.
 * Use {@link Long#toUnsignedString(long)} and {@link Long#compareUnsigned(long, long)} to show or order
 * these values.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@JacksonAnnotationsInside
@JsonSerialize(using = UnsignedLongWriter.class)
@JsonDeserialize(using = UnsignedLongReader.class)
public @interface Uint64 {
}
