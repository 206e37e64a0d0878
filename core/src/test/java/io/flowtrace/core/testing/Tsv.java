package io.flowtrace.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/** Reads the tshark field dumps committed next to the captures: a header row, then tab-separated rows. */
public final class Tsv {
    private Tsv() {}

    /** Rows as header → cell (missing trailing cells are ""); {@code .gz} files are decompressed. */
    public static List<Map<String, String>> read(Path file) throws IOException {
        List<Map<String, String>> rows = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(file);
                BufferedReader r = new BufferedReader(new InputStreamReader(
                        file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw, StandardCharsets.UTF_8))) {
            String[] header = r.readLine().split("\t", -1);
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                String[] cells = line.split("\t", -1);
                Map<String, String> row = new HashMap<>();
                for (int i = 0; i < header.length; i++) {
                    row.put(header[i], i < cells.length ? cells[i] : "");
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
