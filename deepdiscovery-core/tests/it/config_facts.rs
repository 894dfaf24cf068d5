//! Configuration facts: key paths and classified values for every format.

use deepdiscovery_core::Language;
use deepdiscovery_core::facts::{self, Facts, KeyKind, config::classify_value};

fn keys(facts: &Facts, kind: KeyKind) -> Vec<(String, String, u32)> {
    facts
        .string_keys
        .iter()
        .filter(|k| k.kind == kind)
        .map(|k| (k.text.clone(), k.key.clone(), k.line))
        .collect()
}

fn texts(facts: &Facts, kind: KeyKind) -> Vec<String> {
    keys(facts, kind).into_iter().map(|k| k.0).collect()
}

#[test]
fn yaml_gives_dotted_keys_with_lines_and_classified_values() {
    let text = "\
spring:
  datasource:
    url: ${DB_URL:jdbc:h2:mem}
    driver: org.h2.Driver
  profiles: [dev, prod]
logging:
  config: config/logback.xml
handlers:
  - myapp.handlers.AuditHandler
  - name: plain words here
---
second:
  doc: true
";
    let facts = facts::extract(Language::Yaml, "application.yml", text);
    assert!(facts.problems.is_empty(), "{:?}", facts.problems);
    let config = keys(&facts, KeyKind::ConfigKey);
    assert!(
        config.contains(&("spring.datasource.url".into(), String::new(), 3)),
        "{config:?}"
    );
    assert!(config.contains(&("spring.datasource.driver".into(), String::new(), 4)));
    assert!(config.contains(&("handlers.name".into(), String::new(), 10)));
    assert!(config.contains(&("spring.profiles".into(), String::new(), 5)));
    assert!(config.contains(&("second.doc".into(), String::new(), 13)));
    assert_eq!(
        keys(&facts, KeyKind::Placeholder),
        [("DB_URL".to_string(), "spring.datasource.url".to_string(), 3)]
    );
    assert_eq!(
        texts(&facts, KeyKind::DottedPath),
        ["org.h2.Driver", "myapp.handlers.AuditHandler"]
    );
    assert_eq!(keys(&facts, KeyKind::DottedPath)[1].1, "handlers");
    assert_eq!(texts(&facts, KeyKind::FilePath), ["config/logback.xml"]);
}

#[test]
fn json_toml_and_xml_are_read_with_real_parsers() {
    let json = r#"{"compilerOptions": {"baseUrl": "./src", "plugins": ["ts.plugin.Main"]}, "main": "dist/index.js"}"#;
    let facts = facts::extract(Language::Json, "tsconfig.json", json);
    assert!(texts(&facts, KeyKind::ConfigKey).contains(&"compilerOptions.baseUrl".to_string()));
    assert!(texts(&facts, KeyKind::FilePath).contains(&"./src".to_string()));
    assert!(texts(&facts, KeyKind::FilePath).contains(&"dist/index.js".to_string()));
    assert!(texts(&facts, KeyKind::DottedPath).contains(&"ts.plugin.Main".to_string()));

    let toml = "[project.entry-points.\"shop.plugins\"]\nstripe = \"shop.payments.stripe:Plugin\"\n[tool.x]\nlevel = 3\n";
    let facts = facts::extract(Language::Toml, "pyproject.toml", toml);
    assert!(texts(&facts, KeyKind::ConfigKey).contains(&"tool.x.level".to_string()));
    assert_eq!(
        texts(&facts, KeyKind::DottedPath),
        ["shop.payments.stripe.Plugin"]
    );

    let xml = r#"<?xml version="1.0"?>
<beans>
  <bean id="orders" class="com.acme.orders.OrderService">
    <property name="gateway" ref="gateway"/>
  </bean>
  <mapper namespace="com.acme.mapper.UserMapper"/>
  <settings><timeout>30</timeout></settings>
</beans>
"#;
    let facts = facts::extract(Language::Xml, "beans.xml", xml);
    let dotted = keys(&facts, KeyKind::DottedPath);
    assert_eq!(
        dotted[0],
        (
            "com.acme.orders.OrderService".into(),
            "beans.bean.@class".into(),
            3
        )
    );
    assert_eq!(dotted[1].0, "com.acme.mapper.UserMapper");
    assert!(texts(&facts, KeyKind::ConfigKey).contains(&"beans.settings.timeout".to_string()));
}

#[test]
fn properties_ini_and_env_are_line_formats_with_their_own_rules() {
    let properties = "# comment\n! also\nserver.port=8080\napp.name : Shop\nmulti.line = first \\\n   second\nspaced value\nkey\\=with\\:escapes=v\nfactory=com.acme.Factory\n";
    let facts = facts::extract(Language::Properties, "application.properties", properties);
    let config = keys(&facts, KeyKind::ConfigKey);
    let names: Vec<&str> = config.iter().map(|k| k.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "server.port",
            "app.name",
            "multi.line",
            "spaced",
            "key=with:escapes",
            "factory"
        ]
    );
    assert_eq!(config[2].2, 5);
    assert_eq!(texts(&facts, KeyKind::DottedPath), ["com.acme.Factory"]);

    let ini = "[metadata]\nname = shop\n[options.entry_points]\nconsole_scripts =\n    shop = shop.cli:main\n; comment\n[paths]\nroot: %(here)s/data\n";
    let facts = facts::extract(Language::Ini, "setup.cfg", ini);
    assert!(texts(&facts, KeyKind::ConfigKey).contains(&"metadata.name".to_string()));
    let dotted = keys(&facts, KeyKind::DottedPath);
    assert_eq!(
        dotted,
        [(
            "shop.cli.main".into(),
            "options.entry_points.console_scripts".into(),
            5
        )]
    );
    assert_eq!(texts(&facts, KeyKind::Placeholder), ["here"]);

    let env =
        "# env\nexport DATABASE_URL=\"postgres://db/x\"\nSETTINGS_MODULE=shop.settings.prod\n";
    let facts = facts::extract(Language::Env, ".env", env);
    assert_eq!(
        texts(&facts, KeyKind::ConfigKey),
        ["DATABASE_URL", "SETTINGS_MODULE"]
    );
    assert_eq!(texts(&facts, KeyKind::DottedPath), ["shop.settings.prod"]);
}

#[test]
fn malformed_config_keeps_what_was_read_and_records_the_problem() {
    let yaml = "good:\n  key: 1\nbad: [unclosed\n";
    let facts = facts::extract(Language::Yaml, "broken.yml", yaml);
    assert!(texts(&facts, KeyKind::ConfigKey).contains(&"good.key".to_string()));
    assert!(
        facts.problems[0].contains("broken.yml"),
        "{:?}",
        facts.problems
    );
    for (language, text) in [
        (Language::Json, "{\"a\": "),
        (Language::Toml, "a = = 1"),
        (Language::Xml, "<a><b></a>"),
    ] {
        let facts = facts::extract(language, "x", text);
        assert_eq!(facts.problems.len(), 1, "{language}");
    }
}

#[test]
fn values_are_classified_conservatively() {
    let kinds = |v: &str| {
        classify_value(v)
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kinds("myapp.middleware.AuthMiddleware"),
        [KeyKind::DottedPath]
    );
    assert_eq!(kinds(".MainActivity"), [KeyKind::DottedPath]);
    assert_eq!(kinds("src/app/main.py"), [KeyKind::FilePath]);
    assert_eq!(kinds("../conf/x.yml"), [KeyKind::FilePath]);
    assert_eq!(
        kinds("${a.b} and ${c}"),
        [KeyKind::Placeholder, KeyKind::Placeholder]
    );
    for plain in [
        "hello world",
        "example.com",
        "config.yml",
        "3.14",
        "v1.2.3",
        "https://a.b/c.py",
        "x",
    ] {
        assert!(
            !kinds(plain).contains(&KeyKind::DottedPath),
            "{plain} is not a dotted path"
        );
    }
    assert_eq!(kinds("config.yml"), [KeyKind::FilePath]);
}

#[test]
fn json_with_comments_and_trailing_commas_is_read() {
    let text = "{\n  // the web client\n  \"compilerOptions\": {\n    \"baseUrl\": \"src\", /* root */\n    \"outDir\": \"dist/app.js\",\n  },\n  \"note\": \"a // not a comment\",\n}\n";
    let facts = facts::extract(Language::Json, "tsconfig.json", text);
    assert!(facts.problems.is_empty(), "{:?}", facts.problems);
    let config = texts(&facts, KeyKind::ConfigKey);
    assert!(
        config.contains(&"compilerOptions.baseUrl".to_string()),
        "{config:?}"
    );
    assert!(config.contains(&"note".to_string()));
    assert_eq!(texts(&facts, KeyKind::FilePath), ["dist/app.js"]);
}
