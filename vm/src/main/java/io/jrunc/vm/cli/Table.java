package io.jrunc.vm.cli;

import java.io.PrintStream;
import java.util.List;

/** Columns padded to their widest cell, as podman lays out its lists. */
final class Table {
    private Table() {
    }

    static void print(PrintStream out, String[] header, List<String[]> rows) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] r : rows) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        line(out, header, width);
        rows.forEach(r -> line(out, r, width));
    }

    private static void line(PrintStream out, String[] cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            b.append(i == cells.length - 1 ? cells[i] : String.format("%-" + (width[i] + 2) + "s", cells[i]));
        }
        out.println(b.toString().stripTrailing());
    }
}
