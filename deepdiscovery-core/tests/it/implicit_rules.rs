//! The registration, injection and event rules on fixture repositories of four
//! ecosystems (Spring, Django, Express/Node, Go): the edges that must come out, and
//! the ones that must not.

use deepdiscovery_core::facts::{ArgKind, extract};
use deepdiscovery_core::{Language, Relation};

use crate::support::{assert_edge, assert_no_edge, fixture_graph};

const SPRING: &str = "src/main/java/com/acme/billing";

fn spring(path: &str) -> String {
    format!("{SPRING}/{path}")
}

#[test]
fn spring_constructor_and_field_injection_reach_the_beans() {
    let graph = fixture_graph("spring_service");
    let service = spring("invoices/InvoiceService.java");
    let edge = assert_edge(
        &graph,
        &service,
        &spring("payments/StripeGateway.java"),
        Relation::Injection,
        "`InvoiceService` is injected with `PaymentGateway`",
    );
    assert!(
        edge.rationale
            .contains("provided by `@Component StripeGateway`"),
        "{}",
        edge.rationale
    );
    assert_edge(
        &graph,
        &service,
        &spring("payments/PaymentGateway.java"),
        Relation::Injection,
        "declared here",
    );
    assert_edge(
        &graph,
        &spring("invoices/InvoiceController.java"),
        &service,
        Relation::Injection,
        "provided by `@Service InvoiceService`",
    );
    // The sandbox gateway implements the interface but is no bean; the test builds
    // the service by hand.
    assert_no_edge(
        &graph,
        &service,
        &spring("payments/SandboxGateway.java"),
        Relation::Injection,
    );
    assert_no_edge(
        &graph,
        "src/test/java/com/acme/billing/invoices/InvoiceServiceTest.java",
        &service,
        Relation::Injection,
    );
}

#[test]
fn spring_events_link_publishers_to_listeners_by_event_type() {
    let graph = fixture_graph("spring_service");
    assert_edge(
        &graph,
        &spring("invoices/InvoiceService.java"),
        &spring("notifications/InvoiceMailer.java"),
        Relation::EventBinding,
        "emits the event type `InvoiceIssued` with `publishEvent`",
    );
    // `@EventListener(PaymentRefunded.class)`: the class literal names the event.
    assert_edge(
        &graph,
        &spring("payments/StripeGateway.java"),
        &spring("notifications/AuditLog.java"),
        Relation::EventBinding,
        "`PaymentRefunded`",
    );
    assert_no_edge(
        &graph,
        &spring("invoices/InvoiceService.java"),
        &spring("notifications/AuditLog.java"),
        Relation::EventBinding,
    );
    assert_no_edge(
        &graph,
        &spring("payments/StripeGateway.java"),
        &spring("notifications/InvoiceMailer.java"),
        Relation::EventBinding,
    );
}

#[test]
fn spring_value_annotations_still_bind_the_config_keys() {
    let graph = fixture_graph("spring_service");
    assert_edge(
        &graph,
        &spring("invoices/InvoiceService.java"),
        "src/main/resources/application.yml",
        Relation::ConfigBinding,
        "billing.invoice.prefix",
    );
}

#[test]
fn django_admin_and_urls_register_models_and_views() {
    let graph = fixture_graph("django_site");
    assert_edge(
        &graph,
        "orders/admin.py",
        "orders/models.py",
        Relation::Registration,
        "registers `Book` with `register`",
    );
    assert_edge(
        &graph,
        "orders/urls.py",
        "orders/views.py",
        Relation::Registration,
        "registers `order_list` with `path`",
    );
    // `reverse("order-list")` and `redirect("order-list")` look up the URL name.
    assert_edge(
        &graph,
        "orders/tests/test_views.py",
        "orders/urls.py",
        Relation::Registration,
        "looks up `order-list` with `reverse`",
    );
    assert_edge(
        &graph,
        "orders/views.py",
        "orders/urls.py",
        Relation::Registration,
        "`redirect`",
    );
    // The admin registers models, nothing from the views; the root URLconf
    // includes the app by a dotted string, not by a name.
    assert_no_edge(
        &graph,
        "orders/admin.py",
        "orders/views.py",
        Relation::Registration,
    );
    assert_no_edge(
        &graph,
        "bookshop/urls.py",
        "orders/views.py",
        Relation::Registration,
    );
}

#[test]
fn django_signals_link_the_sender_to_the_receivers() {
    let graph = fixture_graph("django_site");
    assert_edge(
        &graph,
        "orders/services.py",
        "orders/handlers.py",
        Relation::EventBinding,
        "`order_placed` with `send`",
    );
    // Defining the signal is not emitting it; nothing sends `order_refunded`.
    assert_no_edge(
        &graph,
        "orders/signals.py",
        "orders/handlers.py",
        Relation::EventBinding,
    );
    assert_eq!(
        graph
            .edges_to("orders/handlers.py")
            .iter()
            .filter(|e| e.relation == Relation::EventBinding)
            .count(),
        1
    );
}

#[test]
fn express_routers_register_handlers_and_tests_look_routes_up() {
    let graph = fixture_graph("node_events");
    assert_edge(
        &graph,
        "src/routes/orders.ts",
        "src/handlers/orders.ts",
        Relation::Registration,
        "registers `listOrders` with `get`",
    );
    assert_edge(
        &graph,
        "src/app.ts",
        "src/routes/orders.ts",
        Relation::Registration,
        "registers `ordersRouter` with `use`",
    );
    assert_edge(
        &graph,
        "tests/orders.test.ts",
        "src/app.ts",
        Relation::Registration,
        "looks up `/orders` with `get`",
    );
    // The health handler is registered by the app, not by the orders router.
    assert_no_edge(
        &graph,
        "src/routes/orders.ts",
        "src/handlers/health.ts",
        Relation::Registration,
    );
}

#[test]
fn node_event_emitters_link_to_listeners_by_event_name() {
    let graph = fixture_graph("node_events");
    assert_edge(
        &graph,
        "src/handlers/orders.ts",
        "src/listeners/email.ts",
        Relation::EventBinding,
        "emits the event `order:placed` with `emit`",
    );
    // `order:cancelled` is never emitted, and `error` is too generic to bind on.
    assert_no_edge(
        &graph,
        "src/handlers/orders.ts",
        "src/listeners/metrics.ts",
        Relation::EventBinding,
    );
    assert_no_edge(
        &graph,
        "src/listeners/email.ts",
        "src/handlers/orders.ts",
        Relation::EventBinding,
    );
}

#[test]
fn go_handle_func_registers_handlers_and_topics_bind_pub_to_sub() {
    let graph = fixture_graph("go_service");
    assert_edge(
        &graph,
        "cmd/server/main.go",
        "internal/handlers/orders.go",
        Relation::Registration,
        "registers `ListOrders` with `HandleFunc`",
    );
    assert_no_edge(
        &graph,
        "cmd/server/main.go",
        "internal/handlers/health.go",
        Relation::Registration,
    );
    assert_edge(
        &graph,
        "internal/handlers/orders.go",
        "internal/audit/audit.go",
        Relation::EventBinding,
        "emits the event `orders.created` with `Publish`",
    );
    // The bus defines Publish and Subscribe; it neither emits nor handles a topic.
    assert_no_edge(
        &graph,
        "internal/handlers/orders.go",
        "internal/events/bus.go",
        Relation::EventBinding,
    );
    assert_edge(
        &graph,
        "internal/store/memory.go",
        "internal/store/store.go",
        Relation::InterfaceImpl,
        "satisfies the interface `OrderStore`",
    );
}

#[test]
fn no_injection_edges_where_nothing_is_injected() {
    for fixture in ["django_site", "node_events", "go_service"] {
        let graph = fixture_graph(fixture);
        assert_eq!(
            graph.relation_counts().get(&Relation::Injection),
            None,
            "{fixture}"
        );
    }
}

#[test]
fn decorations_and_call_sites_are_facts() {
    let facts = extract(
        Language::Python,
        "urls.py",
        "@app.route(\"/orders\")\ndef orders():\n    return path(\"x/\", views.show, name=\"x\")\n",
    );
    let route = &facts.decorations[0];
    assert_eq!(
        (
            route.name.as_str(),
            route.receiver.as_str(),
            route.target.as_str()
        ),
        ("route", "app", "orders")
    );
    assert_eq!(route.args, ["/orders"]);
    let call = &facts.calls_with_args[0];
    assert_eq!((call.callee.as_str(), call.line), ("path", 3));
    assert_eq!(call.args, ["x/", "show", "x"]);
    assert_eq!(
        call.arg_kinds,
        [ArgKind::Literal, ArgKind::Name, ArgKind::Literal]
    );

    let facts = extract(
        Language::Java,
        "A.java",
        "@Service\nclass A {\n  @Autowired B b;\n  A(C c) {}\n  @EventListener(E.class)\n  void on(E e) { bus.publishEvent(new E()); }\n}\n",
    );
    let summary: Vec<(&str, &str, Vec<String>)> = facts
        .decorations
        .iter()
        .map(|d| (d.name.as_str(), d.target.as_str(), d.param_types.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            ("Service", "A", vec!["C".to_string()]),
            ("Autowired", "B", vec![]),
            ("EventListener", "on", vec!["E".to_string()]),
        ]
    );
    assert_eq!(facts.decorations[2].args, ["E"]);
    assert_eq!(facts.calls_with_args[0].args, ["E"]);
}

/// (name, receiver, target, param types, args) of each decoration of a snippet.
fn decorations(language: Language, text: &str) -> Vec<(String, String, String, String, String)> {
    extract(language, "snippet", text)
        .decorations
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                d.receiver.clone(),
                d.target.clone(),
                d.param_types.join(","),
                d.args.join(","),
            )
        })
        .collect()
}

/// (callee, receiver, args) of each call site of a snippet.
fn calls(language: Language, text: &str) -> Vec<(String, String, String)> {
    extract(language, "snippet", text)
        .calls_with_args
        .iter()
        .map(|c| (c.callee.clone(), c.receiver.clone(), c.args.join(",")))
        .collect()
}

fn row(parts: [&str; 5]) -> (String, String, String, String, String) {
    let [a, b, c, d, e] = parts.map(str::to_string);
    (a, b, c, d, e)
}

fn call(parts: [&str; 3]) -> (String, String, String) {
    let [a, b, c] = parts.map(str::to_string);
    (a, b, c)
}

#[test]
fn decorations_in_typescript_kotlin_csharp_and_javascript() {
    let ts = "@Injectable()\nexport class Orders {\n  constructor(private gw: Gateway, @Inject(TOKEN) repo: Repo<Order>) {}\n  @OnEvent('order.created')\n  handle(e: OrderCreated) {}\n}\n@Module({ providers: [Orders] })\nexport class AppModule {}\n";
    assert_eq!(
        decorations(Language::TypeScript, ts),
        [
            row(["Injectable", "", "Orders", "Gateway,Repo", ""]),
            row(["Inject", "", "Repo", "", "TOKEN"]),
            row(["OnEvent", "", "handle", "OrderCreated", "order.created"]),
            row(["Module", "", "AppModule", "", "Orders"]),
        ]
    );
    let kotlin = "@Service\nclass Orders(private val gw: Gateway) {\n  @Autowired lateinit var clock: Clock\n  @EventListener\n  fun on(e: OrderPlaced) {}\n}\nclass Audit @Inject constructor(private val log: Log?)\n";
    assert_eq!(
        decorations(Language::Kotlin, kotlin),
        [
            row(["Service", "", "Orders", "Gateway", ""]),
            row(["Autowired", "", "Clock", "", ""]),
            row(["EventListener", "", "on", "OrderPlaced", ""]),
            row(["Inject", "", "Audit", "Log", ""]),
        ]
    );
    let csharp = "[ApiController]\npublic class OrdersController {\n  public OrdersController(IGateway gw) {}\n  [HttpGet(\"{id}\")]\n  public void Get(int id) {}\n}\n";
    assert_eq!(
        decorations(Language::CSharp, csharp),
        [
            row(["ApiController", "", "OrdersController", "IGateway", ""]),
            row(["HttpGet", "", "Get", "int", "{id}"]),
        ]
    );
    let js = "@Component({ selector: 'app-root' })\nclass Root {\n  @HostListener('resize') onResize() {}\n}\n";
    assert_eq!(
        decorations(Language::JavaScript, js),
        [
            row(["Component", "", "Root", "", "app-root"]),
            row(["HostListener", "", "onResize", "", "resize"]),
        ]
    );
}

#[test]
fn call_sites_in_every_language() {
    assert_eq!(
        calls(
            Language::Go,
            "package main\nfunc main() {\n\thttp.HandleFunc(\"/orders\", handlers.List)\n\tbus.Publish(\"orders.created\", &Created{ID: 1})\n\tfmt.Println(x + 1)\n}\n"
        ),
        [
            call(["HandleFunc", "http", "/orders,List"]),
            call(["Publish", "bus", "orders.created,Created"]),
        ]
    );
    assert_eq!(
        calls(
            Language::CSharp,
            "class P { void M() { services.AddScoped<IGateway, StripeGateway>(); bus.Send(new OrderPlaced(1)); } }"
        ),
        [
            call(["AddScoped", "services", "IGateway,StripeGateway"]),
            call(["Send", "bus", "OrderPlaced"]),
        ]
    );
    assert_eq!(
        calls(
            Language::Kotlin,
            "fun f() { bus.emit(\"x\", OrderPlaced::class) ; publisher.publishEvent(OrderPlaced(id)) }"
        ),
        [
            call(["emit", "bus", "x,OrderPlaced"]),
            call(["publishEvent", "publisher", "OrderPlaced"]),
            call(["OrderPlaced", "", "id"]),
        ]
    );
    // Interpolated strings and `this.` members are no argument values; identical
    // calls are kept once.
    assert_eq!(
        calls(
            Language::TypeScript,
            "this.bus.emit(`order:${id}`, this.order);\nrouter.get('/a', list);\nrouter.get('/a', list);\n"
        ),
        [call(["get", "router", "/a,list"])]
    );
    assert_eq!(
        calls(
            Language::JavaScript,
            "app.use('/orders', ordersRouter);\nemitter.on('ready', () => {});\n"
        ),
        [
            call(["use", "app", "/orders,ordersRouter"]),
            call(["on", "emitter", "ready"]),
        ]
    );
}
