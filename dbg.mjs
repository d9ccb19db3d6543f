import 'reflect-metadata';
import fs from 'node:fs';
const { CedarPolicies } = await import('./dist/src/policy/cedar-policies.js');
const src = fs.readFileSync('test/policy/cedar-differential.test.ts','utf8');
const corpus = src.split('export const CORPUS = `')[1].split('`;')[0];
const t = (ref, props={}, req=[]) => ({ref,toolset:ref.split('/')[0],tool:{inputSchema:{type:'object',properties:{amount:{type:'integer'},...props},required:['amount',...req]},annotations:{}}});
const p = new CedarPolicies({ policies: corpus }, [t('orders/refund',{orderId:{type:'string'},items:{type:'integer'},price:{type:'number'},tags:{type:'array',items:{type:'string'}},meta:{type:'object',properties:{level:{type:'integer'},note:{type:'string'}},required:['level']}},['orderId','items']), t('orders/lookup',{orderId:{type:'string'}}), {...t('files/read'), tool:{...t('files/read').tool, annotations:{resources:()=>[]}}}]);
console.log([...p.ids].join(' '));
console.log(p.compiled.policies.map(x=>x.id).join(' '));
