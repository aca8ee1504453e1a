package io.jrunc.agent.api.tar;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** pax extended header records: "LENGTH key=value\n", LENGTH counting the whole record in bytes. */
final class PaxRecords {
    private PaxRecords() {
    }

    static byte[] encode(Map<String, String> records) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> r : records.entrySet()) {
            int body = (" " + r.getKey() + "=" + r.getValue() + "\n").getBytes(StandardCharsets.UTF_8).length;
            int length = body + Integer.toString(body).length();
            if (Integer.toString(length).length() != Integer.toString(body).length()) {
                length++; // the length's own digits carried it over a power of ten
            }
            out.append(length).append(' ').append(r.getKey()).append('=').append(r.getValue()).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> decode(byte[] data) throws IOException {
        Map<String, String> records = new LinkedHashMap<>();
        int at = 0;
        while (at < data.length) {
            if (data[at] == 0) {
                break; // padding some writers leave
            }
            int space = at;
            while (space < data.length && data[space] != ' ') {
                space++;
            }
            int length;
            try {
                length = Integer.parseInt(new String(data, at, space - at, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw new IOException("a pax record with a bad length");
            }
            if (length <= space - at + 1 || at + length > data.length || data[at + length - 1] != '\n') {
                throw new IOException("a pax record with a bad length");
            }
            String record = new String(data, space + 1, at + length - space - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            if (eq <= 0) {
                throw new IOException("a pax record without a key");
            }
            records.put(record.substring(0, eq), record.substring(eq + 1));
            at += length;
        }
        return records;
    }

    /** Seconds and nanoseconds as pax writes a time: "1700000000.123456789", no fraction when whole. */
    static String time(long seconds, int nanos) {
        if (nanos == 0) {
            return Long.toString(seconds);
        }
        return BigDecimal.valueOf(seconds).add(BigDecimal.valueOf(nanos, 9)).stripTrailingZeros().toPlainString();
    }

    /** {seconds, nanoseconds} of a pax time (negative times round towards minus infinity). */
    static long[] parseTime(String value) throws IOException {
        try {
            BigDecimal t = new BigDecimal(value);
            BigDecimal seconds = t.setScale(0, java.math.RoundingMode.FLOOR);
            long nanos = t.subtract(seconds).movePointRight(9).setScale(0, java.math.RoundingMode.DOWN).longValueExact();
            return new long[] {seconds.longValueExact(), nanos};
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IOException("a pax time that does not parse: " + value);
        }
    }
}
