import { describe, expect, it } from "vitest";
import { angularToVue } from "./angular-template";

describe("a Dashboard 1 template's Angular directives as Vue's", () => {
  it.each([
    ['<div ng-bind-html="msg.payload"></div>', '<div v-html="msg.payload"></div>'],
    ['<pre ng-bind-html="msg.payload"></pre>', '<pre v-html="msg.payload"></pre>'],
    ['<span ng-bind="msg.topic"></span>', '<span v-text="msg.topic"></span>'],
    ['<p ng-if="msg.payload > 20">hot</p>', '<p v-if="msg.payload > 20">hot</p>'],
    ['<p ng-show="msg.on">on</p><p ng-hide="msg.on">off</p>', '<p v-show="msg.on">on</p><p v-show="!(msg.on)">off</p>'],
    [`<div ng-class="{'alarm': msg.payload.alarm, ok: !msg.payload.alarm}"></div>`, `<div :class="{'alarm': msg.payload.alarm, ok: !msg.payload.alarm}"></div>`],
    [`<div ng-style="{color: msg.color}"></div>`, `<div :style="{color: msg.color}"></div>`],
    [`<md-button class="md-raised" ng-click="send({payload: 'hello'})">Go</md-button>`, `<v-btn class="md-raised" @click="send({payload: 'hello'})">Go</v-btn>`],
    [`<button ng-click='send({payload: "a"})'>A</button>`, `<button @click="send({payload: &quot;a&quot;})">A</button>`],
    ['<img ng-src="/img/{{msg.payload}}.png">', `<img :src="'/img/' + (msg.payload) + '.png'">`],
    ['<a ng-href="{{msg.url}}">x</a>', '<a :href="(msg.url)">x</a>'],
    ['<li ng-repeat="row in msg.payload">{{row.name}}</li>', '<li v-for="(row, $index) in msg.payload">{{row.name}}</li>'],
    ['<li ng-repeat="line in msg.payload track by $index" ng-style="{color: $index % 2 ? \'red\' : \'blue\'}">{{line}}</li>', '<li v-for="(line, $index) in msg.payload" :key="$index" :style="{color: $index % 2 ? \'red\' : \'blue\'}">{{line}}</li>'],
    ['<tr ng-repeat="(name, value) in msg.payload">{{name}}={{value}}</tr>', '<tr v-for="(value, name, $index) in msg.payload">{{name}}={{value}}</tr>'],
    ['<li ng-repeat="item in msg.items track by item.id">{{item.label}}</li>', '<li v-for="(item, $index) in msg.items" :key="item.id">{{item.label}}</li>'],
  ])("%s", (angular, vue) => {
    const t = angularToVue(angular);
    expect(t.format).toBe(vue);
    expect(t.kept).toEqual([]);
    expect(t.rewritten.length).toBeGreaterThan(0);
  });

  it("keeps and names what it does not rewrite: ng-model, ng-init, filters, a script using Angular's scope", () => {
    const t = angularToVue(`<input ng-model="value" ng-init="value = 1"><p>{{msg.payload | number:2}}</p><p>{{a || b}}</p><script>(function(scope) { scope.$watch('msg', function() {}); })(scope);</script><li ng-repeat="x in list | filter:q">{{x}}</li>`);
    expect(t.format).toContain('ng-model="value"');
    expect(t.format).toContain('ng-repeat="x in list | filter:q"');
    expect(t.kept).toEqual(["ng-model", "ng-init", "ng-repeat", "{{msg.payload | number:2}}", "<script> using Angular's scope"]);
    expect(t.rewritten).toEqual([]);
  });

  it("leaves a template without Angular as it is", () => {
    const vue = '<template><div :class="x">{{ msg.payload }}</div></template>';
    expect(angularToVue(vue)).toEqual({ format: vue, rewritten: [], kept: [] });
  });
});
