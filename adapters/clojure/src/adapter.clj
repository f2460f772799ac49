;; skill-conform adapter for the Clojure port of toolnexus (protocol version 1).
;;
;; Speaks ../../PROTOCOL.md: JSON Lines requests on stdin, one reply line per request on
;; stdout, free-form diagnostics on stderr. It calls only the toolnexus library on the
;; classpath (net.clojars.muthuishere/toolnexus) through its public API, and contains no
;; toolnexus code:
;;
;;   (skill/list-skills {:dirs roots})                                  → inventory
;;   (skill/load-skills {:dirs roots :filter filter :sample-limit n})   → loaded
;;   ((:execute (skill/skill-tool loaded)) {"name" n} nil)              → loads
;;       (the `skill` tool built from the loaded map; its execute calls skill/execute-skill)
;;   (skill/skills-prompt loaded)                                       → prompt
;;   (:name tool) (:description tool) (:input-schema tool)              → tool
;;
;; Start it with run.sh (see README.md):
;;   java -cp CLASSPATH clojure.main -m adapter [--reply-fd N]
;;
;; CONVERSIONS: everything this adapter does to the port's values before they go on the wire.
;; Anything not listed is passed through as the port returned it (order, spelling, whitespace).
;;
;;   1. nil → null: a skill's :description nil or absent → "description": null; a skip's
;;      :detail nil or absent (the port sets it only when its YAML reader threw; releases
;;      before D6 never) → "detail": null. "" stays "".
;;   2. Keyword keys → their names on the wire: :name :description :location :reason :detail,
;;      :output → "output", :isError → "isError", and every key of the tool's :input-schema
;;      (e.g. :additionalProperties → "additionalProperties"); :input-schema → "inputSchema".
;;      Keyword VALUES inside the schema (none today) would become their names too. :metadata,
;;      :source, :by-name, :skipped, :filter-unmatched are not in the protocol: dropped.
;;   3. execute is synchronous; called with ctx nil. loads[i].name echoes the request.
;;   4. Anything thrown by the port (any Throwable, including Errors such as StackOverflowError)
;;      → {"case":…,"error":"<class name>: <message>"}; the stack trace goes to stderr.
;;   5. A reply with a lone UTF-16 surrogate (the JVM can hold one in a String) → {"case":…,
;;      "error":"adapter: cannot encode reply: …"}.
;;   6. hello's version: the library jar's META-INF/maven/net.clojars.muthuishere/toolnexus/
;;      pom.properties; for a :local/root checkout (no jar), the system property
;;      skillconform.toolnexus.version that run.sh sets from the checkout's build.clj.
;;
;; Inputs go to the port unchanged: roots as a vector of strings in request order; filter as
;; the decoded map with string keys and boolean values ({} stays {}); sampleLimit as the decoded
;; integer (a Long).
;;
;; STREAMS. run.sh points fd 1 at stderr before the JVM starts and passes --reply-fd 3, so
;; nothing the JVM, native code or a child process writes to fd 1 reaches the replies, which
;; go to /dev/fd/3. Inside the JVM, System.out is set to System.err and *out* (root binding and
;; the main thread's binding) is a writer on stderr, so the port's `println` warnings go to
;; stderr. Without --reply-fd, replies go to the JVM's original fd 1 (FileDescriptor/out).
(ns adapter
  (:require [clojure.data.json :as json]
            [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (java.io BufferedReader FileDescriptor FileOutputStream InputStreamReader
                    OutputStream OutputStreamWriter PrintStream PrintWriter)
           (java.nio CharBuffer)
           (java.nio.charset CharacterCodingException CodingErrorAction StandardCharsets)
           (java.util Properties)))

(def ^:private protocol-version 1)
(def ^:private port-name "clojure")
(def ^:private library-name "toolnexus")

(defn- log [& parts]
  (binding [*out* *err*]
    (println (apply str "[adapter-clojure] " parts))))

;; ---------------------------------------------------------------------------
;; the library, loaded at hello (or the first run) so a failure is a reply

(def ^:private lib (atom nil))

(defn- library []
  (or @lib
      (let [r (fn [sym] (or (requiring-resolve sym)
                            (throw (ex-info (str "toolnexus has no " sym) {}))))
            m {:list-skills   (r 'toolnexus.skill/list-skills)
               :load-skills   (r 'toolnexus.skill/load-skills)
               :skill-tool    (r 'toolnexus.skill/skill-tool)
               :skills-prompt (r 'toolnexus.skill/skills-prompt)}]
        (reset! lib m))))

(defn- library-version []
  (or (when-let [res (io/resource
                      "META-INF/maven/net.clojars.muthuishere/toolnexus/pom.properties")]
        (with-open [in (.openStream res)]
          (let [p (Properties.)] (.load p in) (.getProperty p "version"))))
      (not-empty (System/getProperty "skillconform.toolnexus.version"))
      "unknown"))

;; hello's "libraries": the versions of what decides verdicts. The port parses front matter
;; itself; koine supplies its file-system walk (and so the discovery order).
(defn- maven-version [group artifact]
  (or (when-let [res (io/resource (str "META-INF/maven/" group "/" artifact "/pom.properties"))]
        (with-open [in (.openStream res)]
          (let [p (Properties.)] (.load p in) (.getProperty p "version"))))
      "unknown"))

(defn- verdict-libraries []
  {"net.clojars.muthuishere/koine" (maven-version "net.clojars.muthuishere" "koine")})

;; ---------------------------------------------------------------------------
;; output

(defn- utf8-strict ^bytes [^String s]
  (let [enc (doto (.newEncoder StandardCharsets/UTF_8)
              (.onMalformedInput CodingErrorAction/REPORT)
              (.onUnmappableCharacter CodingErrorAction/REPORT))
        bb  (.encode enc (CharBuffer/wrap s))
        out (byte-array (.remaining bb))]
    (.get bb out)
    out))

(defn- to-json ^String [x]
  (json/write-str x :escape-unicode false :escape-slash false))

(defn- describe [^Throwable t]
  (let [msg (.getMessage t)]
    (if (str/blank? msg) (.getName (class t)) (str (.getName (class t)) ": " msg))))

(defn- send! [^OutputStream out reply]
  (let [bytes (try
                (utf8-strict (str (to-json reply) "\n"))
                (catch Throwable t ;; CharacterCodingException, or a value JSON cannot express
                  (log "reply not encodable: " (describe t))
                  (utf8-strict
                   (str (to-json (cond-> {"error" (str "adapter: cannot encode reply: " (describe t))}
                                   (contains? reply "case") (assoc "case" (get reply "case"))))
                        "\n"))))]
    (.write out ^bytes bytes)
    (.flush out)))

;; ---------------------------------------------------------------------------
;; requests

(defn- bad [msg] (throw (ex-info msg {::bad true})))

(defn- field [req k pred what]
  (when-not (contains? req k) (bad (str "run: missing field '" k "'")))
  (let [v (get req k)]
    (when-not (pred v)
      (bad (str "run: field '" k "' must be " what ", got "
                (let [s (to-json v)] (subs s 0 (min 80 (count s)))))))
    v))

(defn- parse-run [req]
  (let [strings? (fn [v] (and (sequential? v) (every? string? v)))]
    {:case         (field req "case" string? "a string")
     :roots        (vec (field req "roots" strings? "an array of strings"))
     :sample-limit (field req "sampleLimit" integer? "an integer")
     :filter       (field req "filter" #(and (map? %) (every? boolean? (vals %))) "an object of booleans")
     :load         (vec (field req "load" strings? "an array of strings"))
     :tool         (field req "tool" boolean? "a boolean")}))

(defn- run-case [run]
  (let [{:keys [list-skills load-skills skill-tool skills-prompt]} (library)
        inv    (list-skills {:dirs (:roots run)})
        loaded (load-skills {:dirs (:roots run) :filter (:filter run) :sample-limit (:sample-limit run)})
        tool   (skill-tool loaded)
        exec   (:execute tool)
        loads  (mapv (fn [n]
                       (let [r (exec {"name" n} nil)]
                         {"name" n "isError" (:isError r) "output" (:output r)}))
                     (:load run))
        prompt (skills-prompt loaded)]
    (cond-> {"case"      (:case run)
             "inventory" {"skills"  (mapv (fn [s] {"name"        (:name s)
                                                   "description" (:description s)
                                                   "location"    (:location s)})
                                          (:skills inv))
                          "skipped" (mapv (fn [k] {"location" (:location k)
                                                   "reason"   (:reason k)
                                                   "detail"   (:detail k)})
                                          (:skipped inv))}
             "loads"     loads
             "prompt"    prompt}
      (:tool run) (assoc "tool" {"name"        (:name tool)
                                 "description" (:description tool)
                                 "inputSchema" (:input-schema tool)}))))

(defn- handle
  "Returns [:reply map], [:none] or [:bye]."
  [line]
  (if (str/blank? line)
    [:none]
    (let [req (try (json/read-str line)
                   (catch Throwable t {::not-json (describe t)}))]
      (cond
        (::not-json req)   [:reply {"error" (str "request is not JSON: " (::not-json req))}]
        (not (map? req))   [:reply {"error" "request is not a JSON object"}]
        :else
        (case (get req "cmd")
          "bye" [:bye]
          "hello"
          (let [p (get req "protocol")]
            (if-not (and (integer? p) (== p protocol-version))
              [:reply {"error" (str "unsupported protocol " (to-json p) "; this adapter speaks " protocol-version)}]
              (try
                (library)
                [:reply {"protocol" protocol-version
                         "port"     port-name
                         "library"  library-name
                         "version"  (library-version)
                         "runtime"  (str "Clojure " (clojure-version) " on "
                                         (System/getProperty "java.vm.name") " "
                                         (System/getProperty "java.runtime.version"))
                         "libraries" (verdict-libraries)}]
                (catch Throwable t
                  (log "cannot load the library: " t)
                  (.printStackTrace t)
                  [:reply {"error" (str "cannot load " library-name ": " (describe t))}]))))
          "run"
          (let [run (try (parse-run req)
                         (catch clojure.lang.ExceptionInfo e
                           (if (::bad (ex-data e)) {::bad (.getMessage e)} (throw e))))]
            (if (::bad run)
              [:reply {"error" (::bad run)}]
              (try
                [:reply (run-case run)]
                (catch Throwable t
                  (log "case " (:case run) ": the port threw")
                  (.printStackTrace t)
                  [:reply {"case" (:case run) "error" (describe t)}]))))
          [:reply {"error" (str "unknown cmd " (to-json (get req "cmd")))}])))))

(defn -main [& args]
  (let [reply-fd  (some->> args (drop-while #(not= "--reply-fd" %)) second)
        reply-out (if reply-fd
                    (FileOutputStream. (str "/dev/fd/" reply-fd) true)
                    (FileOutputStream. FileDescriptor/out))
        err-out   (PrintWriter. (OutputStreamWriter. System/err StandardCharsets/UTF_8) true)
        in        (BufferedReader. (InputStreamReader. System/in StandardCharsets/UTF_8))]
    (System/setOut (PrintStream. (FileOutputStream. FileDescriptor/err) true "UTF-8"))
    (alter-var-root #'*out* (constantly err-out))
    (binding [*out* err-out]
      (loop []
        (when-let [line (.readLine in)]
          (let [[kind reply] (handle line)]
            (case kind
              :bye   nil
              :none  (recur)
              :reply (do (send! reply-out reply) (recur)))))))
    (.flush err-out)
    (shutdown-agents)
    (System/exit 0)))
