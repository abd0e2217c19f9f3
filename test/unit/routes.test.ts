import { describe, expect, it } from 'vitest';
import { findRoute, functionNames, matchPath, routes } from '../../shared/topology/routes.js';

describe('route table', () => {
  it('matches literal paths and path parameters', () => {
    expect(matchPath('/ping', '/ping')).toEqual({});
    expect(matchPath('/incidents/{id}', '/incidents/abc')).toEqual({ id: 'abc' });
    expect(matchPath('/incidents/{id}', '/incidents/')).toBeUndefined();
    expect(matchPath('/incidents/{id}', '/incidents/a/b')).toBeUndefined();
    expect(matchPath('/ping', '/pong')).toBeUndefined();
  });

  it('matches a greedy last parameter to the rest of the path, never to nothing or an empty segment', () => {
    expect(matchPath('/docs/{asset+}', '/docs/swagger-ui.css')).toEqual({ asset: 'swagger-ui.css' });
    expect(matchPath('/docs/{asset+}', '/docs/a/b.js')).toEqual({ asset: 'a/b.js' });
    expect(matchPath('/docs/{asset+}', '/docs')).toBeUndefined();
    expect(matchPath('/docs/{asset+}', '/docs/')).toBeUndefined();
    expect(matchPath('/docs/{asset+}', '/docs/a//b')).toBeUndefined();
    expect(matchPath('/docs', '/docs/x')).toBeUndefined();
  });

  it('has one entry per method and path, each served by a function', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(findRoute('GET', '/ping')?.functionName).toBe('ping');
    expect(functionNames()).toContain('ping');
  });

  it('protects every route but the public documents', () => {
    for (const route of routes) {
      if (route.access === 'public')
        expect(['/openapi.json', '/docs', '/portal']).toContain(route.path.split('/').slice(0, 2).join('/'));
    }
  });
});
