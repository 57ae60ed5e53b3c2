package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The four typed shared arrays are exactly what scripts/gen-shared-arrays.sh makes of the template. */
class GeneratedArraysUpToDateTest {
    @Test
    void typedArraysMatchTheTemplate() throws IOException {
        Path module = Path.of("").toAbsolutePath();
        String template = Files.readString(module.resolve("src/main/template/SharedArrayImpl.java.template"), StandardCharsets.UTF_8);
        String[][] specs = {{"Double", "double", "3"}, {"Float", "float", "2"}, {"Int", "int", "2"}, {"Long", "long", "3"}};
        for (String[] s : specs) {
            String expected = template.replace("@N@", s[0]).replace("@P@", s[1]).replace("@SHIFT@", s[2])
                    .replace("@U@", s[0].toUpperCase(java.util.Locale.ROOT));
            Path file = module.resolve("src/main/java/io/dsa/agent/internal/Shared" + s[0] + "ArrayImpl.java");
            assertEquals(expected, Files.readString(file, StandardCharsets.UTF_8),
                    file + " differs from the template: run scripts/gen-shared-arrays.sh");
        }
    }
}
