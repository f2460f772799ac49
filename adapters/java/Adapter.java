/*
 * skill-conform adapter for the Java port of toolnexus (protocol version 1).
 *
 * Speaks the protocol in ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per
 * request on stdout, free-form diagnostics on stderr. It calls only the toolnexus jar on its
 * class path (io.github.muthuishere:toolnexus, package io.github.muthuishere.toolnexus) through
 * its public API and contains no toolnexus code. setup.sh resolves the jar, compiles this file
 * with Java >= 21 and prints a launcher script.
 *
 * CONVERSIONS - everything this adapter does to the port's values before they go on the wire.
 * Anything not listed is passed through as the port returned it (order, spelling, whitespace).
 *
 *  1. SkillInfo.description == null            -> "description": null ("" stays "").
 *  2. A SkillSkip without a public `detail` field (older releases, e.g. 0.16.0) -> "detail": null.
 *     The field is looked up by reflection, so one source compiles against old and new
 *     releases. A present detail is sent as is, including "" (never turned into null).
 *  3. Wire names: ToolResult.output()/isError() -> output/isError; Tool.name()/description()/
 *     inputSchema() -> name/description/inputSchema. ToolResult.metadata(), Tool.source() and
 *     SkillSource.skipped() are not in the protocol and are not sent.
 *  4. A null List from the port (skills, skipped) -> []. The inputSchema map is written in the
 *     map's own iteration order; its values (Map, List, String, Boolean, Number, null) map to
 *     JSON one to one.
 *  5. The hello "version" is read from the jar: its manifest Implementation-Version, else its
 *     META-INF/maven pom.properties, else the Maven repository layout of its path
 *     (.../toolnexus/VERSION/toolnexus-VERSION.jar), else the system property
 *     toolnexus.version that setup.sh sets (for a local checkout: the `version` its
 *     build.gradle declares).
 *  6. A Throwable from the port -> {"case":..., "error":"<class name>: <message>"}
 *     (Throwable.toString()). The stack trace goes to stderr. Nothing else from that case is sent.
 *  7. A reply holding a string Java cannot encode as UTF-8 (a lone surrogate), or a value JSON
 *     cannot express (NaN, an unknown type in inputSchema), or a sampleLimit outside Java's int
 *     range -> {"case":..., "error":"adapter: ..."}; the prefix marks the adapter's limit.
 *
 * Inputs go to the port unchanged: roots as a List<String> in the order received (no
 * resolving), filter as a Map<String, Boolean> in the order received ({} stays an empty map),
 * sampleLimit as the int received, each load name as a mutable Map {"name": n}, the
 * ToolContext as null.
 *
 * STREAMS. Before any toolnexus class is touched, the adapter keeps the real stdout
 * (FileDescriptor.out) for replies and the real stdin (FileDescriptor.in) for requests, then
 * points System.out at System.err and System.in at an empty stream. So nothing the library
 * prints through System.out reaches the protocol stream. Java cannot re-point fd 1 itself
 * without native code, so a write to fd 1 from native code or a child process that inherits
 * fd 1 is NOT diverted (the skill loader does neither).
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.muthuishere.toolnexus.SkillSource;
import io.github.muthuishere.toolnexus.Tool;
import io.github.muthuishere.toolnexus.ToolResult;

public final class Adapter {
    static final int PROTOCOL = 1;
    static final String PORT = "java";
    static final String LIBRARY = "toolnexus";
    static final String LIBRARY_CLASS = "io.github.muthuishere.toolnexus.SkillSource";

    private static OutputStream protoOut;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The request itself is wrong: the reply carries no case id. */
    static final class BadRequest extends Exception {
        BadRequest(String message) { super(message); }
    }

    /** The adapter cannot express the port's result: an error reply with the "adapter:" prefix. */
    static final class AdapterLimit extends Exception {
        AdapterLimit(String message) { super(message); }
    }

    /** sampleLimitOverflow: the JSON text of a whole-number sampleLimit outside int, else null. */
    record RunRequest(String caseId, List<String> roots, int sampleLimit, String sampleLimitOverflow,
                      Map<String, Boolean> filter, List<String> load, boolean tool) {}

    public static void main(String[] args) throws IOException {
        // --- streams: before anything touches the library.
        protoOut = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        InputStream protoIn = new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16);
        System.setOut(System.err);
        System.setIn(new ByteArrayInputStream(new byte[0]));

        while (true) {
            byte[] line = readLine(protoIn);
            if (line == null) {
                break; // EOF means bye
            }
            if (!handle(line)) {
                break;
            }
        }
        System.err.flush();
        System.exit(0); // do not wait for non-daemon threads the library may have started
    }

    /** One line without its '\n' (a final line without '\n' counts), or null at EOF. */
    static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        boolean any = false;
        while ((b = in.read()) != -1) {
            any = true;
            if (b == '\n') {
                return buf.toByteArray();
            }
            buf.write(b);
        }
        return any ? buf.toByteArray() : null;
    }

    static void log(String msg) {
        System.err.println("[adapter-java] " + msg);
        System.err.flush();
    }

    // ------------------------------------------------------------------------------------------
    // requests

    /** Answers one request line; returns false when the adapter should exit. */
    static boolean handle(byte[] raw) throws IOException {
        String text;
        try {
            CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            text = dec.decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            sendRequestError("request is not UTF-8: " + e);
            return true;
        }
        if (text.isBlank()) {
            return true; // blank lines are not requests
        }
        JsonNode req;
        try {
            req = MAPPER.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            sendRequestError("request is not JSON: " + e.getOriginalMessage());
            return true;
        }
        if (req == null || !req.isObject()) {
            sendRequestError("request is not a JSON object");
            return true;
        }
        JsonNode cmd = req.get("cmd");
        String name = cmd != null && cmd.isTextual() ? cmd.asText() : null;
        if ("bye".equals(name)) {
            return false;
        }
        if ("hello".equals(name)) {
            hello(req);
            return true;
        }
        if (!"run".equals(name)) {
            sendRequestError("unknown cmd " + (cmd == null ? "(missing)" : cmd.toString()));
            return true;
        }
        RunRequest run;
        try {
            run = parseRun(req);
        } catch (BadRequest e) {
            sendRequestError(e.getMessage());
            return true;
        }
        run(run);
        return true;
    }

    static JsonNode field(JsonNode req, String key) throws BadRequest {
        JsonNode v = req.get(key);
        if (v == null) {
            throw new BadRequest("run: missing field '" + key + "'");
        }
        return v;
    }

    static BadRequest wrong(String key, String what, JsonNode got) {
        String shown = got.toString();
        if (shown.length() > 80) {
            shown = shown.substring(0, 80) + "…";
        }
        return new BadRequest("run: field '" + key + "' must be " + what + ", got " + shown);
    }

    static RunRequest parseRun(JsonNode req) throws BadRequest {
        JsonNode c = field(req, "case");
        if (!c.isTextual()) throw wrong("case", "a string", c);

        JsonNode r = field(req, "roots");
        if (!r.isArray()) throw wrong("roots", "an array of strings", r);
        List<String> roots = new ArrayList<>();
        for (JsonNode e : r) {
            if (!e.isTextual()) throw wrong("roots", "an array of strings", r);
            roots.add(e.asText());
        }

        JsonNode s = field(req, "sampleLimit");
        if (!s.isIntegralNumber()) throw wrong("sampleLimit", "an integer", s);
        // A whole number outside int range is a valid request that Java's int cannot hold:
        // run() answers it as an adapter limit (conversion 7).
        int sampleLimit = s.canConvertToInt() ? s.intValue() : 0;
        String overflow = s.canConvertToInt() ? null : s.toString();

        JsonNode f = field(req, "filter");
        if (!f.isObject()) throw wrong("filter", "an object of booleans", f);
        Map<String, Boolean> filter = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = f.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isBoolean()) throw wrong("filter", "an object of booleans", f);
            filter.put(e.getKey(), e.getValue().booleanValue());
        }

        JsonNode l = field(req, "load");
        if (!l.isArray()) throw wrong("load", "an array of strings", l);
        List<String> load = new ArrayList<>();
        for (JsonNode e : l) {
            if (!e.isTextual()) throw wrong("load", "an array of strings", l);
            load.add(e.asText());
        }

        JsonNode t = field(req, "tool");
        if (!t.isBoolean()) throw wrong("tool", "a boolean", t);

        return new RunRequest(c.asText(), roots, sampleLimit, overflow, filter, load, t.booleanValue());
    }

    // ------------------------------------------------------------------------------------------
    // hello

    static void hello(JsonNode req) throws IOException {
        JsonNode p = req.get("protocol");
        if (p == null || !p.isIntegralNumber() || !p.canConvertToInt() || p.intValue() != PROTOCOL) {
            sendRequestError("unsupported protocol " + (p == null ? "(missing)" : p.toString())
                    + "; this adapter speaks " + PROTOCOL);
            return;
        }
        String version;
        try {
            Class<?> cls = Class.forName(LIBRARY_CLASS, true, Adapter.class.getClassLoader());
            version = libraryVersion(cls);
        } catch (Throwable e) { // NoClassDefFoundError, ExceptionInInitializerError, ...
            e.printStackTrace();
            sendRequestError("cannot load " + LIBRARY + ": " + e);
            return;
        }
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("protocol", PROTOCOL);
        reply.put("port", PORT);
        reply.put("library", LIBRARY);
        reply.put("version", version);
        reply.put("runtime", runtimeName());
        reply.put("libraries", verdictLibraries());
        send(reply);
    }

    /** hello's "libraries": the versions of what decides verdicts, the YAML library first. */
    static Map<String, String> verdictLibraries() {
        Map<String, String> found = new LinkedHashMap<>();
        found.put("org.yaml:snakeyaml", jarVersion("org.yaml.snakeyaml.Yaml", "snakeyaml"));
        return found;
    }

    /** The version in the file name of the jar that holds a class (`snakeyaml-2.3.jar` → 2.3). */
    static String jarVersion(String className, String artifact) {
        try {
            Class<?> cls = Class.forName(className, false, Adapter.class.getClassLoader());
            String where = cls.getProtectionDomain().getCodeSource().getLocation().getPath();
            Matcher m = Pattern.compile("/" + Pattern.quote(artifact) + "-([^/]+)\\.jar$").matcher(where);
            return m.find() ? m.group(1) : "unknown (" + where + ")";
        } catch (Throwable e) { // not on the class path, or no code source
            return "not on the class path";
        }
    }

    static String runtimeName() {
        String name = System.getProperty("java.runtime.name", "");
        String head = name.contains("OpenJDK") ? "OpenJDK" : "Java";
        return head + " " + System.getProperty("java.version", "?")
                + " (" + System.getProperty("java.vendor", "?") + ")";
    }

    static final Pattern M2_PATH = Pattern.compile("/toolnexus/([^/]+)/toolnexus-\\1(?:-[^/]*)?\\.jar$");

    /** Conversion 5: the version of the toolnexus jar as installed. */
    static String libraryVersion(Class<?> cls) {
        Package pkg = cls.getPackage();
        if (pkg != null && pkg.getImplementationVersion() != null) {
            return pkg.getImplementationVersion();
        }
        try {
            URL loc = cls.getProtectionDomain().getCodeSource().getLocation();
            String path = loc.toURI().getPath();
            if (path != null && path.endsWith(".jar")) {
                try (JarFile jar = new JarFile(path)) {
                    Manifest mf = jar.getManifest();
                    if (mf != null) {
                        String v = mf.getMainAttributes().getValue("Implementation-Version");
                        if (v != null) return v;
                    }
                    ZipEntry pom = jar.getEntry("META-INF/maven/io.github.muthuishere/toolnexus/pom.properties");
                    if (pom != null) {
                        Properties props = new Properties();
                        try (InputStream in = jar.getInputStream(pom)) {
                            props.load(in);
                        }
                        if (props.getProperty("version") != null) return props.getProperty("version");
                    }
                }
                Matcher m = M2_PATH.matcher(path);
                if (m.find()) return m.group(1);
            }
        } catch (Exception e) {
            log("cannot read the toolnexus jar's version: " + e);
        }
        String prop = System.getProperty("toolnexus.version");
        return prop != null && !prop.isEmpty() ? prop : "unknown";
    }

    // ------------------------------------------------------------------------------------------
    // run

    static void run(RunRequest run) throws IOException {
        if (run.sampleLimitOverflow() != null) {
            sendCaseError(run.caseId(), "adapter: sampleLimit " + run.sampleLimitOverflow()
                    + " does not fit in a Java int, the type of LoadOptions.sampleLimit");
            return;
        }
        Map<String, Object> reply;
        try {
            reply = runCase(run);
        } catch (Throwable e) { // every failure of the port is an outcome, not a crash
            log("case " + run.caseId() + ": the port threw");
            e.printStackTrace();
            sendCaseError(run.caseId(), e.toString());
            return;
        }
        byte[] line;
        try {
            line = encodeLine(reply);
        } catch (AdapterLimit e) {
            log("case " + run.caseId() + ": reply not encodable: " + e.getMessage());
            sendCaseError(run.caseId(), "adapter: cannot encode reply: " + e.getMessage());
            return;
        }
        write(line);
    }

    static Map<String, Object> runCase(RunRequest run) {
        // 1. the inventory: roots only
        SkillSource.SkillInventory inv = SkillSource.listSkills(
                new SkillSource.LoadOptions().dirs(new ArrayList<>(run.roots())));
        List<Object> skills = new ArrayList<>();
        List<Object> skipped = new ArrayList<>();
        if (inv != null && inv.skills != null) {
            for (SkillSource.SkillInfo s : inv.skills) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("name", s.name);
                e.put("description", s.description); // null stays null (conversion 1)
                e.put("location", s.location);
                skills.add(e);
            }
        }
        if (inv != null && inv.skipped != null) {
            for (SkillSource.SkillSkip s : inv.skipped) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("location", s.location);
                e.put("reason", s.reason);
                e.put("detail", skipDetail(s));
                skipped.add(e);
            }
        }
        Map<String, Object> inventory = new LinkedHashMap<>();
        inventory.put("skills", skills);
        inventory.put("skipped", skipped);

        // 2. one load with the roots, the filter and the sample limit
        SkillSource src = SkillSource.loadWith(new SkillSource.LoadOptions()
                .dirs(new ArrayList<>(run.roots()))
                .filter(new LinkedHashMap<>(run.filter()))
                .sampleLimit(run.sampleLimit()));
        Tool tool = src.tool();

        // 3. the skill tool, once per name, in order
        List<Object> loads = new ArrayList<>();
        for (String name : run.load()) {
            Map<String, Object> callArgs = new HashMap<>();
            callArgs.put("name", name);
            ToolResult res = tool.execute(callArgs, null);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", name);
            e.put("isError", res.isError());
            e.put("output", res.output());
            loads.add(e);
        }

        // 4. the prompt
        String prompt = src.prompt();

        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("case", run.caseId());
        reply.put("inventory", inventory);
        reply.put("loads", loads);
        reply.put("prompt", prompt);
        // 5. the tool declaration, when asked
        if (run.tool()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", tool.name());
            t.put("description", tool.description());
            t.put("inputSchema", tool.inputSchema());
            reply.put("tool", t);
        }
        return reply;
    }

    /** Conversion 2: SkillSkip.detail where the release has it, else null. */
    static String skipDetail(SkillSource.SkillSkip skip) {
        try {
            Field f = skip.getClass().getField("detail");
            Object v = f.get(skip);
            return v == null ? null : v.toString();
        } catch (NoSuchFieldException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("adapter: SkillSkip.detail is not readable", e);
        }
    }

    // ------------------------------------------------------------------------------------------
    // replies

    static void sendRequestError(String message) throws IOException {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("error", message);
        sendLenient(r);
    }

    static void sendCaseError(String caseId, String message) throws IOException {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("case", caseId);
        r.put("error", message);
        sendLenient(r);
    }

    static void send(Map<String, Object> reply) throws IOException {
        try {
            write(encodeLine(reply));
        } catch (AdapterLimit e) {
            sendRequestError("adapter: cannot encode reply: " + e.getMessage());
        }
    }

    /** For error replies: a lone surrogate in a message becomes U+FFFD rather than failing. */
    static void sendLenient(Map<String, Object> reply) throws IOException {
        Map<String, Object> clean = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : reply.entrySet()) {
            Object v = e.getValue();
            clean.put(e.getKey(), v instanceof String s ? replaceLoneSurrogates(s) : v);
        }
        try {
            write(encodeLine(clean));
        } catch (AdapterLimit e) {
            throw new IllegalStateException(e); // unreachable: only strings, all cleaned
        }
    }

    static void write(byte[] line) throws IOException {
        protoOut.write(line);
        protoOut.flush();
    }

    static byte[] encodeLine(Object value) throws AdapterLimit {
        StringBuilder sb = new StringBuilder(256);
        writeJson(sb, value, "");
        sb.append('\n');
        try {
            ByteBuffer bb = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(sb));
            byte[] out = new byte[bb.remaining()];
            bb.get(out);
            return out;
        } catch (CharacterCodingException e) {
            throw new AdapterLimit("not encodable as UTF-8: " + e); // unreachable after the string check
        }
    }

    static void writeJson(StringBuilder sb, Object v, String path) throws AdapterLimit {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            writeString(sb, s, path);
        } else if (v instanceof Boolean b) {
            sb.append(b.booleanValue() ? "true" : "false");
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                || v instanceof java.math.BigInteger) {
            sb.append(v.toString());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new AdapterLimit("the number " + v + " at " + shown(path) + " has no JSON form");
            }
            sb.append(v.toString());
        } else if (v instanceof java.math.BigDecimal bd) {
            sb.append(bd.toString());
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String k)) {
                    throw new AdapterLimit("a map key of type " + typeName(e.getKey()) + " at " + shown(path));
                }
                if (!first) sb.append(',');
                first = false;
                writeString(sb, k, path + "." + k);
                sb.append(':');
                writeJson(sb, e.getValue(), path + "." + k);
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            int i = 0;
            for (Object e : c) {
                if (i > 0) sb.append(',');
                writeJson(sb, e, path + "[" + i + "]");
                i++;
            }
            sb.append(']');
        } else if (v instanceof Object[] arr) {
            writeJson(sb, java.util.Arrays.asList(arr), path);
        } else {
            throw new AdapterLimit("a value of type " + typeName(v) + " at " + shown(path));
        }
    }

    static String shown(String path) {
        return path.startsWith(".") ? path.substring(1) : (path.isEmpty() ? "(top)" : path);
    }

    static String typeName(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    static void writeString(StringBuilder sb, String s, String path) throws AdapterLimit {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (Character.isHighSurrogate(ch)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    sb.append(ch).append(s.charAt(i + 1));
                    i++;
                    continue;
                }
                throw new AdapterLimit("lone surrogate in " + shown(path));
            }
            if (Character.isLowSurrogate(ch)) {
                throw new AdapterLimit("lone surrogate in " + shown(path));
            }
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        sb.append('"');
    }

    static String replaceLoneSurrogates(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                sb.append(ch).append(s.charAt(++i));
            } else if (Character.isSurrogate(ch)) {
                sb.append('\uFFFD');
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }
}
