package io.jrunc.ttrpc;

/** A whole ttRPC message: its header and its data (of the header's length, at most 4 MiB). */
public record Frame(FrameHeader header, byte[] data) {
    public Frame {
        if (header.length() != data.length) {
            throw new IllegalArgumentException("header says " + header.length() + " bytes, data has " + data.length);
        }
    }

    public static Frame of(int streamId, int type, int flags, byte[] data) {
        return new Frame(new FrameHeader(data.length, streamId, type, flags), data);
    }
}
