//! No input panics: arbitrary JSON-ish documents near the execution format
//! either fail to parse with an error or verify under every model with a
//! witness that replays.

use lazysma::consistency::json::{parse_execution, verdict_json};
use lazysma::consistency::{MemoryModel, replay, verify};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Values that look like events, with plausible and implausible fields.
fn event() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        Just(json!("a")),
        Just(json!("b")),
        Just(json!("c")),
        Just(json!("init")),
        Just(json!(1)),
        Just(json!(""))
    ];
    let op = prop_oneof![
        Just(json!("write")),
        Just(json!("read")),
        Just(json!("fence")),
        Just(json!("store-fence")),
        Just(json!("atomic-begin")),
        Just(json!("atomic-end")),
        Just(json!("rmw")),
        Just(json!("lock")),
        Just(json!("unlock")),
        Just(json!("cas")),
        Just(json!(null)),
    ];
    let name = prop_oneof![
        Just(json!("x")),
        Just(json!("y")),
        Just(json!(7)),
        Just(json!([]))
    ];
    let rf = prop_oneof![
        Just(json!("init")),
        Just(json!("a")),
        Just(json!("b")),
        Just(json!("c")),
        Just(json!(false))
    ];
    let value = prop_oneof![
        Just(json!(1)),
        Just(json!(-1)),
        Just(json!(1.5)),
        Just(json!(u64::MAX)),
        Just(json!("v"))
    ];
    (
        proptest::option::of(id),
        proptest::option::of(op),
        proptest::option::of(name.clone()),
        proptest::option::of(rf),
        proptest::option::of(name),
        proptest::option::of(value),
    )
        .prop_map(|(id, op, var, rf, mutex, value)| {
            let mut object = serde_json::Map::new();
            for (key, field) in [
                ("id", id),
                ("op", op),
                ("var", var),
                ("rf", rf),
                ("mutex", mutex),
                ("value", value),
            ] {
                if let Some(field) = field {
                    object.insert(key.into(), field);
                }
            }
            Value::Object(object)
        })
}

fn document() -> impl Strategy<Value = Value> {
    let thread = prop_oneof![
        8 => proptest::collection::vec(event(), 0..4).prop_map(Value::Array),
        1 => Just(json!({})),
        1 => Just(json!(3)),
    ];
    prop_oneof![
        8 => proptest::collection::vec(thread, 0..4).prop_map(|threads| json!({ "threads": threads })),
        1 => Just(json!({ "threads": null })),
        1 => Just(json!([])),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn json_like_documents_never_panic(document in document()) {
        if let Ok(execution) = parse_execution(&document.to_string()) {
            for model in [MemoryModel::Sc, MemoryModel::Tso, MemoryModel::Pso] {
                let outcome = verify(&execution, model);
                if let Ok(witness) = &outcome {
                    prop_assert!(replay(&execution, witness, model).is_ok());
                }
                let verdict = verdict_json(&execution, model, outcome.as_ref().ok());
                prop_assert_eq!(verdict["realizable"].as_bool(), Some(outcome.is_ok()));
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse_execution(&text);
    }
}
